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
from datetime import datetime, timedelta

from skillopt_sleep.mine.candidates import Candidate

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
    whose parent was never archived keeps its copy: it is then the only record of the request."""
    held = {
        (m.harness, m.session_id, digest) for digest, found in occurrences.items() for m in found
    }
    kept: dict[str, list[Candidate]] = {}
    for digest, found in occurrences.items():
        stamps: set[tuple[str, datetime]] = set()
        own = kept[digest] = []
        for attempt in found:
            if attempt.forked_from and (attempt.harness, attempt.forked_from, digest) in held:
                continue
            stamp = (attempt.harness, attempt.timestamp)
            if stamp not in stamps:
                stamps.add(stamp)
                own.append(attempt)
    return kept
