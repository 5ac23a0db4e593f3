"""When the daemon should refresh the harvest after transcript changes: pure functions of times.

Harnesses append to transcripts many times a second while an agent works. Refreshing on every
write would re-read the day's transcripts constantly, so a refresh waits for a quiet spell
(``quiet`` seconds after the last change), is forced after ``max_wait`` seconds of unbroken
activity so a long session is not ignored until it ends, and never comes sooner than
``min_interval`` after the previous one. Times are plain floats from a monotonic clock, so tests
pass numbers instead of waiting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Policy:
    quiet: float = 30.0
    max_wait: float = 600.0
    min_interval: float = 300.0


@dataclass(frozen=True)
class Pending:
    """Changes seen since the last refresh: the first and the last, or none."""

    first: float | None = None
    last: float | None = None
    last_refresh: float | None = None


def note_change(state: Pending, now: float) -> Pending:
    return replace(state, first=state.first if state.first is not None else now, last=now)


def refresh_due(state: Pending, now: float, policy: Policy) -> bool:
    if state.first is None or state.last is None:
        return False
    if state.last_refresh is not None and now - state.last_refresh < policy.min_interval:
        return False
    return now - state.last >= policy.quiet or now - state.first >= policy.max_wait


def refreshed(state: Pending, now: float) -> Pending:
    """The state after a refresh that started at ``now``: changes from now on count anew."""
    return Pending(first=None, last=None, last_refresh=now)


class Debouncer:
    """A thread-safe holder of :class:`Pending`: the watcher thread notes changes, the daemon's
    main loop asks :meth:`take` whether to refresh."""

    def __init__(self, policy: Policy, clock: Callable[[], float]) -> None:
        self.policy = policy
        self._clock = clock
        self._state = Pending()
        self._lock = threading.Lock()

    def note(self) -> None:
        with self._lock:
            self._state = note_change(self._state, self._clock())

    def take(self) -> bool:
        """True (and the pending changes cleared) when a refresh is due now."""
        with self._lock:
            now = self._clock()
            if not refresh_due(self._state, now, self.policy):
                return False
            self._state = refreshed(self._state, now)
            return True

    @property
    def state(self) -> Pending:
        with self._lock:
            return self._state
