"""Epoch-boundary updates: the slow update (longitudinal guidance written into a protected block
of the skill) and the meta notes (optimizer-side memory of which edits helped; never shipped)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillopt_core.backends._protocol import Backend, CompletionRequest
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.evidence import unusable_kind
from skillopt_core.prompts import fenced, load_prompt, without_placeholders
from skillopt_core.records import Item, ScoredRollout
from skillopt_core.skill import MARKER_TOKEN, set_protected
from skillopt_core.skill.screen import Finding, ScreenContext, known_hosts, screen_text

SLOW_UPDATE_BLOCK = "slow-update"  # the size budget counts it (gate.LEARNED_REGIONS)
MAX_GUIDANCE_LINES = 8


@dataclass(frozen=True)
class SlowUpdate:
    guidance: str
    candidate: str | None  # the current skill with the guidance block written, None if no guidance
    improved: tuple[str, ...]
    regressed: tuple[str, ...]
    persistent: tuple[str, ...]
    # guidance lines the edit screen refused (skill/screen.py), each with its findings
    refused: tuple[tuple[str, tuple[Finding, ...]], ...] = ()


def _brief(entry: ScoredRollout) -> dict[str, Any]:
    expected = entry.item.get("answers") or [entry.item.get("reference", "")]
    return {
        "item_id": entry.item.id,
        "response": without_placeholders(entry.rollout.response)[:600],
        "expected": [without_placeholders(str(e)) for e in expected],
        "reason": without_placeholders(entry.score.reason)[:300],
    }


def _briefs(entries: Sequence[ScoredRollout]) -> str:
    return fenced(json.dumps([_brief(e) for e in entries[:10]], indent=1), "json")


def slow_update(
    optimizer: Backend,
    evaluator: Evaluator,
    previous: str,
    current: str,
    items: Sequence[Item],
    epoch: int,
) -> SlowUpdate:
    """Compare the epoch's first and last skill on the same items and ask for durable guidance."""
    before = evaluator.run(previous, items)
    after = evaluator.run(current, items)
    improved, regressed, persistent = [], [], []
    for old, new in zip(before, after, strict=True):
        if old.score.hard < new.score.hard:
            improved.append(new)
        elif old.score.hard > new.score.hard:
            regressed.append(new)
        elif new.score.hard < 1.0:
            persistent.append(new)
    prompt = load_prompt("slow_update").format(
        count=len(items),
        epoch=epoch,
        max_lines=MAX_GUIDANCE_LINES,
        previous=fenced(previous, "markdown"),
        current=fenced(current, "markdown"),
        improved=_briefs(improved),
        regressed=_briefs(regressed),
        persistent=_briefs(persistent),
    )
    request = CompletionRequest.of(
        prompt,
        max_tokens=800,
        purpose="slow_update",
        metadata={
            "skill": current,
            "epoch": epoch,
            "persistent_failures": [_brief(e) for e in persistent],
            "improved": [_brief(e) for e in improved],
        },
    )
    lines = [
        ln
        for ln in optimizer.complete(request).text.strip().splitlines()
        if ln.strip() and MARKER_TOKEN not in ln
    ]
    screen = ScreenContext(hosts=known_hosts([previous, current, *requests_of(items)]))
    kept, refused = _screened(lines, screen)
    guidance = "\n".join(kept[:MAX_GUIDANCE_LINES])
    candidate = None
    if guidance:
        candidate = set_protected(current, SLOW_UPDATE_BLOCK, f"## Long-term guidance\n{guidance}")
    return SlowUpdate(
        guidance,
        candidate,
        tuple(e.item.id for e in improved),
        tuple(e.item.id for e in regressed),
        tuple(e.item.id for e in persistent),
        refused,
    )


def requests_of(items: Sequence[Item]) -> list[str]:
    """What the user asked in ``items``: the hosts an edit may name come from here and the skill."""
    return [str(item.get("question") or "") for item in items]


def _screened(
    lines: Sequence[str], screen: ScreenContext
) -> tuple[list[str], tuple[tuple[str, tuple[Finding, ...]], ...]]:
    """Guidance lines the edit screen passes, and those it refuses with their findings: each
    line alone, then the kept ones read together (a download on one line and its run on the
    next pass one by one), dropping each line a finding of theirs points at."""
    kept: list[str] = []
    refused: list[tuple[str, tuple[Finding, ...]]] = []
    for line in lines:
        findings = screen_text(line, screen)
        if findings:
            refused.append((line, findings))
        else:
            kept.append(line)
    while kept:
        owner = [i for i, line in enumerate(kept) for _ in line.split("\n")]
        together = screen_text("\n".join(kept), screen)
        flagged = {owner[f.line - 1] for f in together if f.line}
        if not together:
            break
        if not flagged:  # a finding on the text as a whole: no line of it is kept
            flagged = set(range(len(kept)))
        for i in sorted(flagged):
            mine = tuple(f for f in together if not f.line or owner[f.line - 1] == i)
            refused.append((kept[i], mine))
        kept = [line for i, line in enumerate(kept) if i not in flagged]
    return kept, tuple(refused)


def meta_update(
    optimizer: Backend,
    previous_notes: str,
    accepted: Sequence[dict[str, Any]],
    rejected: Sequence[dict[str, Any]],
) -> str:
    """Refresh the optimizer's private notes from the edit history. An empty reply or a refusal
    (an optimizer that stopped answering part-way through a run) keeps the previous notes: they
    carry what earlier epochs and nights learned, and would otherwise be replaced by nothing."""
    prompt = load_prompt("meta").format(
        previous=fenced(previous_notes) if previous_notes else "(none)",
        accepted=fenced(json.dumps(list(accepted)[-30:], indent=1), "json"),
        rejected=fenced(json.dumps(list(rejected)[-30:], indent=1), "json"),
    )
    request = CompletionRequest.of(
        prompt,
        max_tokens=800,
        purpose="meta",
        metadata={"accepted": list(accepted), "rejected": list(rejected)},
    )
    notes = optimizer.complete(request).text.strip()
    return previous_notes if unusable_kind(notes) else notes
