"""One night of mining: candidates -> archive -> embeddings -> families -> judges -> splits -> tasks.

Requests are compared by their masked text (``families.compared_text``) and clustered with the
same ``label_families`` step that ``cluster_requests`` uses, so what the benchmark measures is
what a night does. A family is replayed when it came up on at least ``min_family_size``
occasions (``occasions``): copies of one request sent to several harnesses at once count once.

Clustering runs over the whole archive (tonight's requests and every earlier night's), so a family
recurs across days; family ids are stable because a cluster keeps the id its archived members
already had.

A night hands over candidates, not sessions (``mine_candidates``: its harvest streams them), and
follows the long steps through ``progress``; each training task's recall is scored only when the
night asks for it (``recall.LazyRecall``).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from skillopt_core.redaction import redact
from skillopt_sleep.mine.archive import Archive, text_hash
from skillopt_sleep.mine.candidates import Candidate, extract_candidates
from skillopt_sleep.mine.coherence import contradictions
from skillopt_sleep.mine.config import FamilySummary, MineConfig, MineResult
from skillopt_sleep.mine.confirm import confirm_families
from skillopt_sleep.mine.dream import dream
from skillopt_sleep.mine.embed import Embedder, create_embedder
from skillopt_sleep.mine.families import compared_text, label_families
from skillopt_sleep.mine.occasions import count_occasions, originals
from skillopt_sleep.mine.recall import training_recall
from skillopt_sleep.mine.splits import Member, assign_splits
from skillopt_sleep.mine.synth import JudgeSpec, synthesize
from skillopt_sleep.mine.vectors import Progress, embed_with_cache, quiet
from skillopt_sleep.records import Evidence, Session, Split, Task

MAX_EVIDENCE = 8


def _confirmed(
    labels: np.ndarray, texts: Sequence[str], optimizer: Any, budget: int, archive: Archive
) -> tuple[np.ndarray, dict[str, int]]:
    """``labels`` with the families the optimizer split relabelled (see ``confirm``)."""
    rows: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        rows.setdefault(int(label), []).append(i)
    splits, counts = confirm_families(
        {label: [texts[i] for i in members] for label, members in rows.items()},
        optimizer,
        budget,
        (archive.confirmation, archive.put_confirmation),
    )
    out = labels.copy()
    fresh = int(labels.max()) + 1 if len(labels) else 0
    for label, groups in sorted(splits.items()):
        for group in groups[1:]:
            out[[rows[label][i] for i in group]] = fresh
            fresh += 1
    return out, counts


def _family_ids(
    labels: np.ndarray, hashes: Sequence[str], previous: Sequence[str | None]
) -> list[str]:
    """Each cluster keeps its most common archived family id (oldest on ties), else gets a new one."""
    ids: list[str] = [""] * len(hashes)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        old = Counter(family for i in members if (family := previous[int(i)]))
        if old:
            chosen = sorted(old.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        else:
            chosen = "f-" + hashlib.sha256(hashes[members[0]].encode()).hexdigest()[:10]
        for i in members:
            ids[i] = chosen
    return ids


def _fingerprint(members: Sequence[Candidate]) -> str:
    keys = sorted(f"{m.session_id}:{m.turn_index}:{m.outcome}:{len(m.signals)}" for m in members)
    return hashlib.sha256("|".join(keys).encode()).hexdigest()[:16]


def _evidence(members: Sequence[Candidate]) -> tuple[Evidence, ...]:
    return tuple(
        Evidence(m.session_id, m.harness, m.timestamp, m.text, m.outcome, m.signals)
        for m in members[-MAX_EVIDENCE:]
    )


def _task_id(family: str, digest: str) -> str:
    return "t-" + hashlib.sha256(f"{family}:{digest}".encode()).hexdigest()[:12]


def _representative(
    indices: Sequence[int], vectors: Any, embedder: Embedder, texts: Sequence[str]
) -> str:
    """The medoid: the request most similar to the rest of its family."""
    if len(indices) == 1:
        return texts[indices[0]]
    sub = vectors[list(indices)]
    return texts[indices[int(np.argmax(embedder.similarity(sub, sub).sum(axis=1)))]]


def mine(
    sessions: Sequence[Session],
    archive: Archive,
    config: MineConfig | None = None,
    optimizer: Any = None,
    progress: Progress = quiet,
) -> MineResult:
    """Mine ``sessions`` (see the module doc); ``progress`` is ``mine_candidates``'."""
    candidates = extract_candidates(sessions)
    return mine_candidates(candidates, len(sessions), archive, config, optimizer, progress)


def mine_candidates(
    candidates: Sequence[Candidate],
    session_count: int,
    archive: Archive,
    config: MineConfig | None = None,
    optimizer: Any = None,
    progress: Progress = quiet,
) -> MineResult:
    """``mine`` from the candidates of ``session_count`` sessions (``CandidateStream`` collects
    them as a harvest streams its sessions). ``progress(step, done, total)`` for the long steps:
    ``embed`` (requests encoded), ``cluster`` (requests whose neighbours are scored, then one
    step for the linkage) and ``families`` (families judged)."""
    config = config or MineConfig()
    started = time.perf_counter()
    night = config.night or datetime.now(timezone.utc).date().isoformat()
    new_occurrences = archive.add(candidates, night)

    # a request with nothing left to compare (an archive from before candidates dropped them) is
    # never clustered nor replayed, not even with ``include_one_offs``
    kept = [(row, text) for row in archive.requests() if (text := compared_text(row[1]))]
    rows = [row for row, _ in kept]
    compared = [text for _, text in kept]
    hashes = [r[0] for r in rows]
    texts = [r[1] for r in rows]
    embedder = create_embedder(config.embedder, model=config.model)
    t0 = time.perf_counter()
    vectors, embedded = embed_with_cache(embedder, hashes, compared, archive, progress)
    embed_s = time.perf_counter() - t0
    threshold = config.threshold if config.threshold is not None else embedder.default_threshold
    labels = label_families(
        vectors,
        compared,
        embedder,
        threshold,
        scale_k=config.scale_k,
        progress=lambda done, total: progress("cluster", done, total),
    )
    confirmed = {"calls": 0, "cached": 0, "split": 0}
    if optimizer is not None and config.confirm_budget > 0:
        labels, confirmed = _confirmed(labels, texts, optimizer, config.confirm_budget, archive)
    family_of = _family_ids(labels, hashes, [r[2] for r in rows])
    archive.set_families(dict(zip(hashes, family_of, strict=True)))

    occurrences = originals(archive.occurrences())
    attempts = {
        (m.harness, m.session_id, m.turn_index) for found in occurrences.values() for m in found
    }
    tonight = Counter(  # attempts per request
        text_hash(c.text) for c in candidates if (c.harness, c.session_id, c.turn_index) in attempts
    )
    by_family: dict[str, list[int]] = {}
    for i, family in enumerate(family_of):
        by_family.setdefault(family, []).append(i)
    size = {
        f: count_occasions(
            (hashes[i], m.timestamp) for i in idx for m in occurrences.get(hashes[i], ())
        )
        for f, idx in by_family.items()
    }
    keep_min = 1 if config.include_one_offs else config.min_family_size
    replayable = sorted(f for f in by_family if size[f] >= keep_min)

    splits = assign_splits(
        {
            f: [Member(hashes[i], rows[i][4], _split(rows[i][3])) for i in by_family[f]]
            for f in replayable
        },
        config.splits,
    )
    archive.set_splits(splits)

    tasks: list[Task] = []
    task_rows: list[int] = []
    summaries: list[FamilySummary] = []
    withheld: list[str] = []
    for number, family in enumerate(replayable):
        progress("families", number, len(replayable))
        indices = by_family[family]
        members = sorted(
            (m for i in indices for m in occurrences.get(hashes[i], ())), key=lambda m: m.timestamp
        )
        representative = _representative(indices, vectors, embedder, texts)
        fingerprint = _fingerprint(members)
        spec = archive.spec(family, fingerprint)
        if spec is None:
            spec = synthesize(representative, members, optimizer)
            archive.put_spec(family, fingerprint, spec, night)
        if contradictions(spec.checks):
            withheld.append(family)  # two tasks merged: see coherence.py
            continue
        evidence = _evidence(members)
        for i in sorted(indices, key=lambda i: rows[i][4]):
            own = occurrences.get(hashes[i], [])
            tasks.append(_task(family, hashes[i], texts[i], own, spec, evidence, splits[hashes[i]]))
            task_rows.append(i)
        summaries.append(
            _summary(
                family,
                spec,
                members,
                [texts[i] for i in indices],
                [splits[hashes[i]] for i in indices],
                tonight,
                hashes,
                indices,
            )
        )

    progress("families", len(replayable), len(replayable))
    recalled = training_recall(tasks, task_rows, vectors, embedder, config.recall_k)
    dreamed = dream(tasks, config.dream_factor, optimizer)
    stats = {
        "sessions": session_count,
        "candidates": len(candidates),
        "new_occurrences": new_occurrences,
        "requests": len(hashes),
        "embedded": embedded,
        "embed_seconds": round(embed_s, 3),
        "threshold": threshold,
        "clusters": int(labels.max() + 1) if len(labels) else 0,
        "families": len(replayable) - len(withheld),
        "withheld_contradictory": len(withheld),
        "confirm_calls": confirmed["calls"],
        "confirm_cached": confirmed["cached"],
        "confirm_split": confirmed["split"],
        "one_offs": sum(1 for f in by_family if size[f] < config.min_family_size),
        "tasks": len(tasks),
        "dreamed": len(dreamed),
        "seconds": round(time.perf_counter() - started, 3),
    }
    return MineResult(
        tasks=tuple(tasks + dreamed),
        families=tuple(summaries),
        embedder_name=embedder.name,
        stats=stats,
        recalled=recalled,
        dream_rollouts=config.dream_rollouts,
    )


def _task(
    family: str,
    digest: str,
    text: str,
    own: Sequence[Candidate],
    spec: JudgeSpec,
    evidence: tuple[Evidence, ...],
    split: Split,
) -> Task:
    context = own[-1].context if own else ""
    return Task(
        id=_task_id(family, digest),
        family=family,
        intent=text,
        context=redact(context),
        checks=spec.checks,
        rubric=spec.rubric,
        reference=spec.reference,
        evidence=evidence,
        split=split,
    )


def _summary(
    family: str,
    spec: JudgeSpec,
    members: Sequence[Candidate],
    requests: Sequence[str],
    splits: Sequence[str],
    tonight: Mapping[str, int],
    hashes: Sequence[str],
    indices: Sequence[int],
) -> FamilySummary:
    return FamilySummary(
        id=family,
        representative=spec.intent,
        size=len(members),
        requests=tuple(requests),
        outcomes=dict(Counter(m.outcome for m in members)),
        splits=dict(Counter(splits)),
        judged_by=spec.judged_by,
        checks=spec.checks,
        new_tonight=sum(tonight.get(hashes[i], 0) for i in indices),  # attempts, as ``size``
    )


def _split(value: str | None) -> Split | None:
    """A split read back from the archive (None when unset or unknown)."""
    return value if value in ("train", "val", "test") else None  # type: ignore[return-value]
