"""Retries with exponential backoff and full jitter, shared by every backend.

Backends translate their failures into :class:`TransientError` (worth retrying: 429, 5xx,
timeouts, dropped connections, a truncated body) or another :class:`BackendError` (not worth it:
bad key, unknown model, bad request). SDK-internal retries are switched off so that these are the
only ones, and a ``Retry-After`` the server sent is honoured while it ends within the call's
deadline; a longer one ends the call at once, since a server must not hold a run for as long as
it likes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timezone
from typing import TypeVar

from skillopt_core.backends._protocol import BackendError, BackendUnavailable
from skillopt_core.backends.options import DEADLINE_PER_TIMEOUT, DEFAULT_TIMEOUT_S, where_to_set

T = TypeVar("T")


class TransientError(BackendError):
    """A failure that may pass on its own; ``retry_after`` is the server's hint in seconds."""

    def __init__(self, message: str, *, hint: str = "", retry_after: float | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class PassingUnavailable(BackendUnavailable):
    """A health check failed with what may pass on its own (a 503, a 429, a timeout): fatal if
    it persists, so the managed layer retries the check first (``retry_after`` as above)."""

    def __init__(self, message: str, *, hint: str = "", retry_after: float | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class RetriesExhausted(BackendError):
    """Every attempt failed with a transient error; ``last`` is the final one."""

    def __init__(self, message: str, *, hint: str = "", attempts: int = 0) -> None:
        super().__init__(message, hint=hint)
        self.attempts = attempts


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` counts the first try. Delays grow ``base_s * 2**n`` up to ``cap_s``;
    a server's ``Retry-After`` replaces them, if it ends within ``deadline_s`` of the call's start
    (the backend's ``deadline`` option, :func:`.options.deadline_seconds`)."""

    max_attempts: int = 4
    base_s: float = 0.5
    cap_s: float = 30.0
    deadline_s: float = DEADLINE_PER_TIMEOUT * DEFAULT_TIMEOUT_S

    def delay(self, retry_number: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry ``retry_number`` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            return retry_after
        ceiling = min(self.cap_s, self.base_s * 2 ** (retry_number - 1))
        return rng.uniform(0, ceiling)

    def refuse_wait(
        self, failed: TransientError, elapsed_s: float, label: str, attempts: int
    ) -> RetriesExhausted | None:
        """The error to end the call with when the server asks for a wait past the deadline."""
        left = self.deadline_s - elapsed_s
        if failed.retry_after is None or failed.retry_after <= left:
            return None
        return RetriesExhausted(
            f"{label}: the server asked to wait {failed.retry_after:.0f}s before a retry "
            f"(Retry-After), more than the {max(left, 0):.0f}s left of the call's "
            f"{self.deadline_s:g}s deadline; last error: {failed.message}",
            hint=f"raise deadline (now {self.deadline_s:g} seconds) to wait that long "
            f"({where_to_set('deadline=SECONDS')}), or run again later",
            attempts=attempts,
        )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), else None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000": HTTP dates are in GMT, not the local time zone
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - time.time())


@dataclass
class RetryStats:
    """Filled in by :func:`call_with_retries` so callers can record attempts in the ledger."""

    attempts: int = 0
    waited_s: float = 0.0


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    stats: RetryStats | None = None,
    label: str = "backend",
    before_retry: Callable[[TransientError], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run ``call``; on :class:`TransientError` wait and try again, up to the policy's attempts
    and never starting one once the deadline has passed since the call began (each attempt is
    bounded by the deadline itself, so an unattended night waits at most about twice it for a
    call, not once per attempt).

    ``before_retry`` runs before each wait and may end the call by raising (the ledger holds the
    retry against the call budget there); ``clock`` measures the call against the deadline."""
    rng = rng or random.Random()
    stats = stats if stats is not None else RetryStats()
    started = clock()
    attempt = 0
    while True:
        attempt += 1
        stats.attempts = attempt
        try:
            return call()
        except TransientError as exc:
            if attempt >= policy.max_attempts:
                raise RetriesExhausted(
                    f"{label}: gave up after {attempt} attempts; last error: {exc.message}",
                    hint=exc.hint
                    or "the service kept failing: run again later, or send fewer calls at once "
                    "(the backend option concurrency)",
                    attempts=attempt,
                ) from exc
            elapsed = clock() - started
            if elapsed >= policy.deadline_s:
                raise RetriesExhausted(
                    f"{label}: gave up after {attempt} attempts: the call's {policy.deadline_s:g}s "
                    f"deadline passed ({elapsed:.0f}s since it began); last error: {exc.message}",
                    hint=f"the service answered too slowly: run again later, or raise deadline "
                    f"(now {policy.deadline_s:g} seconds; {where_to_set('deadline=SECONDS')})",
                    attempts=attempt,
                ) from exc
            refused = policy.refuse_wait(exc, elapsed, label, attempt)
            if refused is not None:
                raise refused from exc
            if before_retry is not None:
                before_retry(exc)
            pause = policy.delay(attempt, exc.retry_after, rng)
            if exc.retry_after is None:  # a jittered wait never carries a retry past the deadline
                pause = min(pause, max(0.0, policy.deadline_s - (clock() - started)))
            stats.waited_s += pause
            sleep(pause)
