"""Retries: backoff with jitter, Retry-After honoured, only transient errors retried."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from skillopt_core.backends import BackendError, BackendUnavailable
from skillopt_core.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    RetryStats,
    TransientError,
    call_with_retries,
    parse_retry_after,
)


class Flaky:
    def __init__(self, failures: list[BaseException], result: str = "done") -> None:
        self.failures = list(failures)
        self.result = result
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.result


def test_transient_errors_are_retried_until_success() -> None:
    sleeps: list[float] = []
    flaky = Flaky([TransientError("a"), TransientError("b")])
    stats = RetryStats()
    assert (
        call_with_retries(flaky, RetryPolicy(max_attempts=3), sleep=sleeps.append, stats=stats)
        == "done"
    )
    assert flaky.calls == 3 and stats.attempts == 3 and len(sleeps) == 2


def test_retry_after_is_honoured_exactly() -> None:
    sleeps: list[float] = []
    flaky = Flaky([TransientError("429", retry_after=7.0)])
    call_with_retries(flaky, RetryPolicy(), sleep=sleeps.append)
    assert sleeps == [7.0]


def test_retry_after_is_capped() -> None:
    sleeps: list[float] = []
    flaky = Flaky([TransientError("429", retry_after=10_000)])
    call_with_retries(flaky, RetryPolicy(max_retry_after_s=60), sleep=sleeps.append)
    assert sleeps == [60]


def test_backoff_grows_exponentially_with_full_jitter() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=5.0)
    rng = random.Random(0)
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        delays = [policy.delay(retry, None, rng) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # jitter spreads over the whole window


def test_gives_up_after_max_attempts_with_a_clear_error() -> None:
    flaky = Flaky([TransientError(f"e{i}", hint="try later") for i in range(5)])
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retries(
            flaky, RetryPolicy(max_attempts=3), sleep=lambda _: None, label="openai:x"
        )
    assert flaky.calls == 3
    assert caught.value.attempts == 3
    assert "gave up after 3 attempts" in str(caught.value) and "e2" in str(caught.value)
    assert "try later" in str(caught.value)


@pytest.mark.parametrize(
    "error", [BackendError("bad request"), BackendUnavailable("401"), ValueError("bug")]
)
def test_other_errors_are_not_retried(error: BaseException) -> None:
    flaky = Flaky([error])
    with pytest.raises(type(error)):
        call_with_retries(flaky, RetryPolicy(), sleep=lambda _: pytest.fail("slept"))
    assert flaky.calls == 1


def test_parse_retry_after() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    when = datetime.now(timezone.utc) + timedelta(seconds=30)
    seconds = parse_retry_after(format_datetime(when, usegmt=True))
    assert seconds is not None and 20 < seconds <= 31
    past = datetime.now(timezone.utc) - timedelta(seconds=30)
    assert parse_retry_after(format_datetime(past, usegmt=True)) == 0.0
