"""Budgets, the ledger, prices, preflight, the concurrency pool and redaction of the managed wrapper."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillopt_core.backends import (
    BackendError,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    Usage,
)
from skillopt_core.backends import managed as managed_module
from skillopt_core.backends.budget import Budget, CallEstimate, CallRecord, Ledger, estimate_call
from skillopt_core.backends.managed import CallPolicy, ManagedBackend
from skillopt_core.backends.preflight import CallGroup, preflight
from skillopt_core.backends.pricing import FREE, Price, PriceTable, load_prices, price_for
from skillopt_core.backends.retry import RetryPolicy, TransientError
from skillopt_core.backends.runtime import open_roles
from skillopt_core.markers import ENGINE_MARKER
from skillopt_core.testing import estimate_tokens


class Counting:
    """A backend that reports the tokens it was asked for and can block until released."""

    name = "counting"
    model = "m"

    def __init__(self, output_tokens: int = 50, gate: threading.Event | None = None) -> None:
        self.output_tokens = output_tokens
        self.gate = gate
        self.calls = 0
        self.active = 0
        self.peak = 0
        self.prompts: list[str] = []
        self.lock = threading.Lock()
        self.failures: list[BaseException] = []

    def health_check(self) -> None:
        return None

    def complete(self, request: CompletionRequest) -> Completion:
        with self.lock:
            self.calls += 1
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.prompts.append(request.prompt_text)
            failure = self.failures.pop(0) if self.failures else None
        try:
            if self.gate is not None:
                assert self.gate.wait(10)
            if failure is not None:
                raise failure
            used = Usage(estimate_tokens(request.prompt_text), self.output_tokens)
            return Completion(text="x" * self.output_tokens, usage=used)
        finally:
            with self.lock:
                self.active -= 1


def _managed(
    inner: Counting, budget: Budget, price: Price = FREE, concurrency: int = 8
) -> ManagedBackend:
    policy = CallPolicy(concurrency=concurrency, retry=RetryPolicy(max_attempts=3))
    return ManagedBackend(
        inner, Ledger(budget), role="target", policy=policy, price=price, sleep=lambda _: None
    )


def _run_many(backend: ManagedBackend, n: int, max_tokens: int = 100) -> list[BaseException | None]:
    def one(i: int) -> BaseException | None:
        try:
            backend.complete(CompletionRequest.of(f"question {i} " * 10, max_tokens=max_tokens))
        except BudgetExceeded as exc:
            return exc
        return None

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(n)))


def test_max_calls_is_never_exceeded_under_concurrency() -> None:
    inner = Counting()
    backend = _managed(inner, Budget(max_calls=10))
    outcomes = _run_many(backend, 40)
    assert inner.calls == 10
    assert sum(o is None for o in outcomes) == 10
    assert backend.ledger.totals.calls == 10
    refused = next(o for o in outcomes if o is not None)
    assert "call budget of 10" in str(refused) and "--max-calls" in str(refused)


def test_max_tokens_is_never_exceeded_under_concurrency() -> None:
    inner = Counting(output_tokens=100)
    backend = _managed(inner, Budget(max_tokens=2_000))
    _run_many(backend, 40, max_tokens=100)
    assert 0 < inner.calls < 40
    assert backend.ledger.totals.total_tokens <= 2_000


def test_max_usd_is_never_exceeded() -> None:
    inner = Counting(output_tokens=1_000)
    price = Price(input=10.0, output=100.0)  # USD per million tokens
    backend = _managed(inner, Budget(max_usd=0.5), price=price)
    _run_many(backend, 20, max_tokens=1_000)
    assert 0 < inner.calls < 20
    assert backend.ledger.totals.cost_usd <= 0.5
    assert all(r.cost_usd > 0 for r in backend.ledger.records)


def test_in_flight_reservations_count_against_the_budget() -> None:
    ledger = Ledger(Budget(max_tokens=250))
    held = ledger.reserve(CallEstimate(50, 100))
    with pytest.raises(BudgetExceeded):
        ledger.reserve(CallEstimate(50, 100))
    ledger.settle(held, CallRecord("target", "b", "m", "p", input_tokens=10, output_tokens=10))
    ledger.reserve(CallEstimate(50, 100))


def test_failed_calls_are_recorded_and_release_their_reservation() -> None:
    inner = Counting()
    inner.failures = [TransientError("boom")] * 3
    backend = _managed(inner, Budget(max_calls=4))
    with pytest.raises(Exception, match="gave up after 3 attempts"):
        backend.complete(CompletionRequest.of("q"))
    (record,) = backend.ledger.records
    assert not record.ok and record.attempts == 3 and "boom" in record.error
    backend.complete(CompletionRequest.of("q"))
    assert backend.ledger.totals.calls == 4 and backend.ledger.totals.failed_calls == 3


def test_every_retry_counts_against_the_call_budget() -> None:
    inner = Counting()
    inner.failures = [TransientError("HTTP 500: boom")] * 10
    policy = CallPolicy(retry=RetryPolicy(max_attempts=5))
    backend = ManagedBackend(
        inner, Ledger(Budget(max_calls=3)), role="target", policy=policy, sleep=lambda _: None
    )
    with pytest.raises(BudgetExceeded) as caught:
        backend.complete(CompletionRequest.of("q"))
    assert inner.calls == 3
    assert "call budget of 3 reached" in str(caught.value) and "HTTP 500: boom" in str(caught.value)
    (record,) = backend.ledger.records
    assert record.attempts == 3 and not record.ok
    assert backend.ledger.totals.calls == 3 and backend.ledger.totals.failed_calls == 3


def test_concurrent_retries_never_exceed_the_call_budget() -> None:
    inner = Counting()
    inner.failures = [TransientError("boom")] * 1_000
    backend = _managed(inner, Budget(max_calls=10))

    def one(i: int) -> None:
        with pytest.raises(BackendError):
            backend.complete(CompletionRequest.of(f"question {i}"))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(20)))
    assert inner.calls == 10 and backend.ledger.totals.calls == 10


def test_a_resumed_run_counts_the_retries_it_journaled(tmp_path: Path) -> None:
    journal = tmp_path / "ledger.jsonl"
    first = Ledger(journal=journal)
    first.settle(
        first.reserve(CallEstimate(10, 5)),
        CallRecord("target", "b", "m", "rollout", attempts=3, ok=False, error="boom"),
    )
    resumed = Ledger(Budget(max_calls=3), journal=journal)
    assert resumed.carried.calls == 3
    with pytest.raises(BudgetExceeded, match="call budget of 3"):
        resumed.reserve(CallEstimate(10, 5))


class Killed(Counting):
    """Fails ``transient`` times with a retryable error, then the process is SIGKILLed mid-call."""

    def __init__(self, transient: int) -> None:
        super().__init__()
        self.failures = [TransientError("503 overloaded") for _ in range(transient)]

    def complete(self, request: CompletionRequest) -> Completion:
        if self.failures:
            raise self.failures.pop(0)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="kills a forked child")
@pytest.mark.parametrize("retries", [0, 2])
def test_a_call_in_flight_when_the_process_is_killed_still_counts(
    tmp_path: Path, retries: int
) -> None:
    """It was journaled only as it settled: each SIGKILL of a run (OOM, a shutdown) forgot the
    calls in flight, up to the concurrency, though the provider bills them."""
    journal = tmp_path / "ledger.jsonl"
    done = Ledger(journal=journal)
    done.settle(done.reserve(CallEstimate(10, 5)), CallRecord("target", "b", "m", "rollout"))
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            policy = CallPolicy(retry=RetryPolicy(max_attempts=3))
            backend = ManagedBackend(
                Killed(retries), Ledger(journal=journal), role="optimizer", policy=policy,
                sleep=lambda _: None,
            )  # fmt: skip
            backend.complete(CompletionRequest.of("reflect on this", purpose="reflect"))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL

    resumed = Ledger(Budget(max_calls=2 + retries), journal=journal)
    assert resumed.carried.calls == 2 + retries
    settled, killed = resumed.records
    assert settled.ok and settled.purpose == "rollout"
    assert (killed.role, killed.backend, killed.model, killed.purpose) == (
        "optimizer", "counting", "m", "reflect",
    )  # fmt: skip
    assert killed.attempts == 1 + retries and not killed.ok and "in flight" in killed.error
    assert killed.input_tokens > 0  # its estimate
    with pytest.raises(BudgetExceeded, match=f"call budget of {2 + retries}"):
        resumed.reserve(CallEstimate(10, 5))


def test_settled_calls_are_counted_once_and_unreserved_ones_too(tmp_path: Path) -> None:
    journal = tmp_path / "ledger.jsonl"
    ledger = Ledger(journal=journal)
    reservation = ledger.reserve(CallEstimate(10, 5), "call", CallRecord("t", "b", "m", "p"))
    ledger.retry(reservation)
    ledger.settle(reservation, CallRecord("t", "b", "m", "p", attempts=2))
    ledger.record(CallRecord("t", "b", "m", "health"))
    again = Ledger(journal=journal)
    assert [(r.purpose, r.attempts, r.ok) for r in again.records] == [
        ("p", 2, True),
        ("health", 1, True),
    ]
    assert again.carried.calls == 3


@given(st.text(max_size=400), st.integers(min_value=1, max_value=4096))
def test_estimate_is_an_upper_bound_of_the_fake_servers_count(text: str, max_tokens: int) -> None:
    estimate = estimate_call(CompletionRequest.of(text, max_tokens=max_tokens))
    assert estimate.input_tokens >= estimate_tokens(text)
    assert estimate.output_tokens == max_tokens


def test_pool_bounds_concurrency_per_backend() -> None:
    gate = threading.Event()
    inner = Counting(gate=gate)
    backend = _managed(inner, Budget(), concurrency=3)
    with ThreadPoolExecutor(10) as pool:
        futures = [pool.submit(backend.complete, CompletionRequest.of("q")) for _ in range(10)]
        while inner.active < 3:
            threading.Event().wait(0.01)
        assert inner.active == 3
        gate.set()
        for f in futures:
            f.result()
    assert inner.peak == 3 and inner.calls == 10


def test_two_roles_on_the_same_backend_share_one_pool() -> None:
    roles = open_roles("mock", "mock", {"concurrency": "2"})
    assert roles.optimizer.slots is roles.target.slots  # type: ignore[attr-defined]
    separate = open_roles(
        "mock", "mock", {"optimizer": {"concurrency": 2}, "target": {"concurrency": 3}}
    )
    assert separate.optimizer.slots is not separate.target.slots  # type: ignore[attr-defined]


def test_open_roles_returns_a_ledger_that_enforces_the_budget() -> None:
    roles = open_roles("mock", "mock", budget=Budget(max_calls=1))
    request = CompletionRequest.of("ping", purpose="ping")
    roles.target.complete(request)
    with pytest.raises(BudgetExceeded):
        roles.optimizer.complete(request)
    assert roles.ledger.totals.calls == 1
    assert roles.ledger.summary()["by_role"]["target"]["calls"] == 1


def test_every_outbound_prompt_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        managed_module, "redact", lambda text: text.replace("sk-secret", "[REDACTED]")
    )
    inner = Counting()
    backend = _managed(inner, Budget())
    request = CompletionRequest.of("key sk-secret here", system="sys sk-secret")
    backend.complete(request)
    assert inner.prompts == [f"sys [REDACTED]\n\n{ENGINE_MARKER}\nkey [REDACTED] here"]


def test_price_table_longest_pattern_wins_and_free_backends() -> None:
    table = load_prices()
    assert table.price("openai", "gpt-5-mini") == Price(0.25, 2.0)
    assert table.price("openai", "gpt-5.5") == Price(1.25, 10.0)
    assert table.price("openai", "openrouter/gpt-4o-mini") == Price(0.15, 0.6)
    assert table.price("mock", "anything") == FREE
    assert table.price("openai", "some-local-model") == table.default


def test_price_table_override_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    override = tmp_path / "prices.toml"
    override.write_text(
        '[default]\ninput = 0\noutput = 0\n[models]\n"llama*" = { input = 0.1, output = 0.2 }\n'
        '[free]\nbackends = ["claude-cli"]\n'
    )
    table = load_prices(override)
    assert table.price("openai", "llama3.1") == Price(0.1, 0.2)
    assert table.price("openai", "unknown") == Price(0.0, 0.0)
    assert table.price("openai", "gpt-4o") == Price(2.5, 10.0)
    assert table.price("claude-cli", "sonnet") == FREE
    monkeypatch.setenv("SKILLOPT_PRICES", str(override))
    assert load_prices().price("openai", "llama3") == Price(0.1, 0.2)
    assert price_for("openai", "gpt-4o", {"price_output": "1"}, table) == Price(2.5, 1.0)


def test_price_table_rejects_malformed_entries() -> None:
    with pytest.raises(ValueError, match="input"):
        PriceTable.from_mapping({"models": {"x": {"output": 1}}})


def test_preflight_totals_and_budget_check() -> None:
    groups = [
        CallGroup("target", "rollout", calls=100, prompt_chars=3_000, max_output_tokens=500),
        CallGroup("optimizer", "reflect", calls=10, prompt_chars=30_000, max_output_tokens=2_000),
    ]
    estimate = preflight(groups, {"optimizer": Price(1.0, 10.0)})
    assert estimate.calls == 110
    per_rollout = estimate_call(CompletionRequest.of("x" * 3_000, system="s", max_tokens=500))
    assert estimate.groups[0].input_tokens >= 100 * (per_rollout.input_tokens - 1)
    assert estimate.output_tokens == 100 * 500 + 10 * 2_000
    assert estimate.groups[0].cost_usd == 0 and estimate.groups[1].cost_usd > 0
    assert estimate.over_budget(Budget()) == []
    problems = estimate.over_budget(Budget(max_calls=50, max_tokens=10, max_usd=0.0001))
    assert len(problems) == 3 and "--max-calls is 50" in problems[0]
    assert estimate.lines()[-1].startswith("total")


def test_ledger_writes_a_json_report(tmp_path: Path) -> None:
    import json

    roles = open_roles("mock", "mock")
    roles.target.complete(CompletionRequest.of("ping", purpose="ping"))
    roles.ledger.write_json(tmp_path / "ledger.json")
    data = json.loads((tmp_path / "ledger.json").read_text())
    assert data["totals"]["calls"] == 1 and data["calls"][0]["purpose"] == "ping"


def _call(ledger: Ledger, purpose: str = "rollout") -> None:
    reservation = ledger.reserve(CallEstimate(10, 5))
    ledger.settle(reservation, CallRecord("target", "mock", "m", purpose, 10, 5))


def test_a_journaled_ledger_continues_the_runs_spend(tmp_path: Path) -> None:
    journal = tmp_path / "run" / "ledger.jsonl"
    first = Ledger(Budget(max_calls=3), journal=journal)
    _call(first)
    _call(first)
    second = Ledger(Budget(max_calls=3), journal=journal)
    assert second.carried.calls == 2 and second.totals.total_tokens == 30
    _call(second)
    with pytest.raises(BudgetExceeded, match="call budget of 3"):
        _call(second)
    assert len(Ledger(journal=journal).records) == 3


def test_a_torn_last_journal_line_is_cut_and_a_damaged_one_refused(tmp_path: Path) -> None:
    from skillopt_core.errors import StorageError

    journal = tmp_path / "ledger.jsonl"
    _call(Ledger(journal=journal))
    with journal.open("a") as handle:
        handle.write('{"role": "tar')  # a kill in the middle of an append
    resumed = Ledger(journal=journal)
    assert resumed.totals.calls == 1
    _call(resumed)
    assert Ledger(journal=journal).totals.calls == 2
    journal.write_text("garbage\n" + journal.read_text())
    with pytest.raises(StorageError, match="damaged at line 1") as caught:
        Ledger(journal=journal)
    assert "--out-root" in caught.value.hint
