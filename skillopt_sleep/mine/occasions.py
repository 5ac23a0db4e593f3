"""Occasions: how many separate times a task came up, which is what recurrence means.

The same request pasted into Claude Code, Codex and Copilot within a minute (to compare their
answers) is one occasion, not three. Attempts with the same request text closer together than
``window`` to the first of them are folded into one occasion; a *different* wording is always a
new occasion (a user who rephrases is asking again). A family is replayed only when it has at
least ``MineConfig.min_family_size`` occasions.

A session that repeats another's turns is no attempt at them (:func:`originals`): a fork
(``claude --fork-session``, a Codex fork) begins with a copy of its parent's conversation, which
Codex writes with the time of the fork, days after the request was typed; an older Claude Code
resumed a session into a new file with the same records, times included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from skillopt_sleep.mine.candidates import Candidate, normalize, outcome_of

WINDOW = timedelta(minutes=10)


def count_occasions(attempts: Iterable[tuple[str, datetime]], window: timedelta = WINDOW) -> int:
    """Occasions among ``(request text hash, aware UTC timestamp)`` attempts of one family."""
    opened: dict[str, datetime] = {}
    count = 0
    for digest, stamp in sorted(attempts):
        first = opened.get(digest)
        if first is None or stamp - first >= window:
            count += 1
            opened[digest] = stamp
    return count


def originals(occurrences: Mapping[str, Sequence[Candidate]]) -> dict[str, list[Candidate]]:
    """Each request's attempts (by text hash, in their order) without the copies: an attempt in
    a session forked from one that holds the same request, or one with the same harness and the
    very same time as an attempt kept before it (the same typed turn, recorded twice). A fork
    whose parent was never archived keeps its copy: it is then the only record of the request.

    A copy is no attempt of its own, but what followed it is evidence about the request: a fork
    is how a user tries again after a bad answer ("no, use the v2 API"). So the signals and the
    feedback a copy holds that its original does not are added to the original (its outcome
    judged again from them)."""
    held = {
        (m.harness, m.session_id, digest) for digest, found in occurrences.items() for m in found
    }
    kept: dict[str, list[Candidate]] = {}
    for digest, found in occurrences.items():
        stamps: dict[tuple[str, datetime], int] = {}
        where: dict[tuple[str, str], int] = {}  # a session's attempt: its place in ``own``
        own = kept[digest] = []
        forks: list[Candidate] = []
        for attempt in found:
            if attempt.forked_from and (attempt.harness, attempt.forked_from, digest) in held:
                forks.append(attempt)
                continue
            stamp = (attempt.harness, attempt.timestamp)
            if stamp in stamps:
                at = stamps[stamp]
                own[at] = with_evidence(own[at], attempt)
            else:
                at = stamps[stamp] = len(own)
                own.append(attempt)
            where[(attempt.harness, attempt.session_id)] = at
        parents: dict[tuple[str, str], str] = {
            (a.harness, a.session_id): a.forked_from for a in forks
        }
        for copy in forks:
            origin = _original(copy, parents, where)
            if origin is not None:
                own[origin] = with_evidence(own[origin], copy)
    return kept


def _original(
    copy: Candidate, parents: Mapping[tuple[str, str], str], where: Mapping[tuple[str, str], int]
) -> int | None:
    """Where in the kept attempts the attempt ``copy`` repeats is: its session's parent's, or,
    for a fork of a fork, the nearest ancestor's that was kept."""
    seen: set[str] = set()
    parent = copy.forked_from
    while parent and parent not in seen:
        seen.add(parent)
        at = where.get((copy.harness, parent))
        if at is not None:
            return at
        parent = parents.get((copy.harness, parent), "")
    return None


def with_evidence(original: Candidate, copy: Candidate) -> Candidate:
    """``original`` with the signals and feedback ``copy`` adds (by kind and text), its outcome
    judged again; the signals name the original's turn."""
    have = {(s.kind, normalize(s.excerpt)) for s in original.signals}
    added = []
    for signal in copy.signals:
        key = (signal.kind, normalize(signal.excerpt))
        if key not in have:
            have.add(key)
            added.append(replace(signal, turn_index=original.turn_index))
    heard = {normalize(text) for text in original.feedback}
    said = [text for text in dict.fromkeys(copy.feedback) if normalize(text) not in heard]
    if not added and not said:
        return original
    signals = (*original.signals, *added)
    return replace(
        original,
        signals=signals,
        outcome=outcome_of(signals),
        feedback=(*original.feedback, *said),
    )
