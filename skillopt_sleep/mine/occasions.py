"""Occasions: how many separate times a task came up, which is what recurrence means.

The same request pasted into Claude Code, Codex and Copilot within a minute (to compare their
answers) is one occasion, not three. Attempts with the same request text closer together than
``window`` to the first of them are folded into one occasion; a *different* wording is always a
new occasion (a user who rephrases is asking again). A family is replayed only when it has at
least ``MineConfig.min_family_size`` occasions.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

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
