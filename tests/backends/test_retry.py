"""Retries: backoff with jitter, Retry-After honoured, only transient errors retried."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from skillopt_core.backends import BackendError, BackendUnavailable
from skillopt_core.backends.managed import CallPolicy
from skillopt_core.backends.retry import (
    RetriesExhausted,
    RetryPolicy,
    RetryStats,
    TransientError,
    call_with_retries,
    parse_retry_after,
)
from skillopt_core.errors import UsageError


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


def test_a_retry_after_past_the_deadline_ends_the_call_at_once() -> None:
    sleeps: list[float] = []
    flaky = Flaky([TransientError("HTTP 429", retry_after=10_000)])
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retries(flaky, RetryPolicy(deadline_s=60), sleep=sleeps.append, label="x:y")
    assert sleeps == [] and flaky.calls == 1
    assert caught.value.message.startswith("x:y: the server asked to wait 10000s")
    assert "60s deadline" in caught.value.message and "HTTP 429" in caught.value.message
    hint = caught.value.hint
    assert "raise deadline (now 60 seconds)" in hint and "`--option deadline=SECONDS`" in hint
    assert "[backends.options] in skillopt-sleep's config" in hint  # it has no --option flag


class Clock:
    """A clock that only the recorded sleeps move."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_a_retry_after_is_waited_up_to_what_remains_of_the_deadline() -> None:
    clock = Clock()
    flaky = Flaky([TransientError("429", retry_after=60), TransientError("429", retry_after=40)])
    call_with_retries(
        flaky, RetryPolicy(deadline_s=100), sleep=clock.sleep, clock=lambda: clock.now
    )
    assert clock.sleeps == [60, 40] and flaky.calls == 3
    clock = Clock()
    flaky = Flaky([TransientError("429", retry_after=60), TransientError("429", retry_after=41)])
    with pytest.raises(RetriesExhausted, match=r"wait 41s .* 40s left of the call's 100s"):
        call_with_retries(
            flaky, RetryPolicy(deadline_s=100), sleep=clock.sleep, clock=lambda: clock.now
        )
    assert clock.sleeps == [60] and flaky.calls == 2


def test_the_deadline_comes_from_the_backend_options() -> None:
    assert CallPolicy.from_options({}).retry.deadline_s == 1200
    assert CallPolicy.from_options({"timeout": "3"}).retry.deadline_s == 30
    assert CallPolicy.from_options({"timeout": 3, "deadline": "45"}).retry.deadline_s == 45
    with pytest.raises(UsageError, match="deadline"):
        CallPolicy.from_options({"deadline": "soon"})


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


@pytest.fixture
def tokyo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The local time zone nine hours off GMT, restored after the test."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("tokyo")
def test_a_retry_after_date_without_a_zone_is_gmt_not_local_time() -> None:
    when = datetime.now(timezone.utc) + timedelta(seconds=30)
    seconds = parse_retry_after(when.strftime("%a, %d %b %Y %H:%M:%S -0000"))
    assert seconds is not None and 20 < seconds <= 31


class SlowFailure:
    """A call that fails with a transient error after ``seconds`` of the clock each time."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock, self.seconds, self.calls = clock, seconds, 0

    def __call__(self) -> str:
        self.calls += 1
        self.clock.now += self.seconds
        raise TransientError("read timed out")


def test_no_retry_starts_once_the_calls_deadline_has_passed() -> None:
    """Four attempts that each time out near the deadline held one call for four deadlines
    (80 minutes at the defaults); a call now stops retrying once its deadline has passed."""
    clock = Clock()
    slow = SlowFailure(clock, 700)
    with pytest.raises(RetriesExhausted) as caught:
        call_with_retries(
            slow,
            RetryPolicy(max_attempts=4, base_s=0, deadline_s=1200),
            sleep=clock.sleep,
            clock=lambda: clock.now,
            label="x:y",
        )
    assert slow.calls == 2 and caught.value.attempts == 2
    assert "1200s deadline passed (1400s since it began)" in caught.value.message
    assert "read timed out" in caught.value.message
    assert "raise deadline (now 1200 seconds" in caught.value.hint


def test_quick_failures_are_still_retried_within_the_deadline() -> None:
    clock = Clock()
    slow = SlowFailure(clock, 5)
    with pytest.raises(RetriesExhausted, match="gave up after 4 attempts; last error"):
        call_with_retries(
            slow,
            RetryPolicy(max_attempts=4, base_s=0, deadline_s=1200),
            sleep=clock.sleep,
            clock=lambda: clock.now,
        )
    assert slow.calls == 4


def test_a_jittered_wait_never_carries_a_retry_past_the_deadline() -> None:
    for seed in range(6):
        clock = Clock()
        slow = SlowFailure(clock, 95)
        starts: list[float] = []

        def call(
            slow: SlowFailure = slow, clock: Clock = clock, starts: list[float] = starts
        ) -> str:
            starts.append(clock.now)
            return slow()

        with pytest.raises(RetriesExhausted):
            call_with_retries(
                call,
                RetryPolicy(max_attempts=4, base_s=30, cap_s=30, deadline_s=100),
                sleep=clock.sleep,
                clock=lambda clock=clock: clock.now,
                rng=random.Random(seed),
            )
        assert all(start <= 100 for start in starts), (seed, starts)
