"""Retries with exponential backoff and full jitter, shared by every backend.

Backends translate their failures into :class:`TransientError` (worth retrying: 429, 5xx,
timeouts, dropped connections, a truncated body) or another :class:`BackendError` (not worth it:
bad key, unknown model, bad request). SDK-internal retries are switched off so that these are the
only ones, and a ``Retry-After`` the server sent is honoured.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from skillopt_core.backends._protocol import BackendError

T = TypeVar("T")


class TransientError(BackendError):
    """A failure that may pass on its own; ``retry_after`` is the server's hint in seconds."""

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
    """``max_attempts`` counts the first try. Delays grow ``base_s * 2**n`` up to ``cap_s``."""

    max_attempts: int = 4
    base_s: float = 0.5
    cap_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, retry_number: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry ``retry_number`` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after_s)
        ceiling = min(self.cap_s, self.base_s * 2 ** (retry_number - 1))
        return rng.uniform(0, ceiling)


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
) -> T:
    """Run ``call``; on :class:`TransientError` wait and try again, up to the policy's attempts."""
    rng = rng or random.Random()
    stats = stats if stats is not None else RetryStats()
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
                    or "the service kept failing; retry later or lower --workers / concurrency",
                    attempts=attempt,
                ) from exc
            pause = policy.delay(attempt, exc.retry_after, rng)
            stats.waited_s += pause
            sleep(pause)
