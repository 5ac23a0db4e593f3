"""Hard per-run budgets and the ledger that accounts every call.

Limits are checked *before* a call against what was spent plus what in-flight calls reserved plus
this call's upper-bound estimate, so concurrent calls can never jointly overshoot. The estimate
bounds output by the request's ``max_tokens`` and input by a deliberately pessimistic
characters-per-token ratio.

The call budget counts requests: every attempt of a call, failed or not, is one call (a retry is
held by :meth:`Ledger.retry` before it is sent, and ``CallRecord.attempts`` counts them). Tokens
and cost count what successful replies reported (or an estimate when they reported none); a
failed attempt adds none, since its reply's usage is not read: a 5xx, a timeout or a malformed
body carries none, and a hostile server's figures would be made up.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from skillopt_core.backends._protocol import BudgetExceeded, CompletionRequest
from skillopt_core.backends.journal import CallRecord, append_journal, begun_record, read_journal
from skillopt_core.backends.pricing import Price
from skillopt_core.rundir import atomic_write_json

CHARS_PER_TOKEN_BOUND = 3
"""English averages about four characters per token; three keeps the estimate an upper bound."""

MESSAGE_OVERHEAD_TOKENS = 8

__all__ = [
    "Budget",
    "CallEstimate",
    "CallRecord",
    "Ledger",
    "Reservation",
    "Totals",
    "estimate_call",
]


@dataclass(frozen=True)
class Budget:
    """Hard per-run limits, checked before each call (None = unlimited)."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_usd: float | None = None

    @property
    def unlimited(self) -> bool:
        return self.max_calls is None and self.max_tokens is None and self.max_usd is None


@dataclass(frozen=True)
class CallEstimate:
    input_tokens: int
    output_tokens: int
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def estimate_call(request: CompletionRequest, price: Price | None = None) -> CallEstimate:
    """Upper-bound tokens (and cost, given a price) of one request before it is sent."""
    chars = len(request.prompt_text)
    if request.json_schema is not None:
        chars += len(json.dumps(dict(request.json_schema)))
    messages = len(request.messages) + (1 if request.system else 0)
    input_tokens = -(-chars // CHARS_PER_TOKEN_BOUND) + MESSAGE_OVERHEAD_TOKENS * messages
    output_tokens = max(0, request.max_tokens)
    cost = price.cost(input_tokens, output_tokens) if price else 0.0
    return CallEstimate(input_tokens, output_tokens, cost)


@dataclass(frozen=True)
class Totals:
    """Sums over call records; ``calls`` and ``failed_calls`` count attempts (requests sent)."""

    calls: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def plus(self, record: CallRecord) -> Totals:
        return Totals(
            calls=self.calls + record.attempts,
            failed_calls=self.failed_calls + record.attempts - (1 if record.ok else 0),
            input_tokens=self.input_tokens + record.input_tokens,
            output_tokens=self.output_tokens + record.output_tokens,
            cost_usd=self.cost_usd + record.cost_usd,
            latency_s=self.latency_s + record.latency_s,
        )


@dataclass(frozen=True)
class Reservation:
    """What one in-flight call holds against the budget until it is settled."""

    id: int
    estimate: CallEstimate


@dataclass
class _Hold:
    """A reservation's share of the budget: its estimate, the attempts it has begun, and what
    the journal says of it until it settles."""

    estimate: CallEstimate
    attempts: int = 1
    provisional: CallRecord | None = None


class Ledger:
    """Thread-safe record of every call of a run, enforcing one shared :class:`Budget`.

    With a ``journal`` (a file in the run directory) the ledger belongs to the run: it starts
    from every call the journal holds, so the budget counts the run's whole spend across resumed
    invocations, and it journals each call (and retry) as it begins and again as it settles, so
    calls in flight when the process was killed count too."""

    def __init__(self, budget: Budget | None = None, *, journal: Path | None = None) -> None:
        self.budget = budget or Budget()
        self.journal = journal
        self._lock = threading.Lock()
        self._records: list[CallRecord] = read_journal(journal) if journal else []
        self._totals = Totals()
        for earlier in self._records:
            self._totals = self._totals.plus(earlier)
        self.carried = self._totals
        """What the run had spent before this ledger was opened."""
        self._in_flight: dict[int, _Hold] = {}
        self._next_id = 0
        self._invocation = secrets.token_hex(6)  # keys this ledger's calls apart in the journal

    def reserve(
        self, estimate: CallEstimate, label: str = "call", call: CallRecord | None = None
    ) -> Reservation:
        """Hold ``estimate`` for one call, or raise BudgetExceeded if it could break a limit.
        ``call`` (its role, backend, model and purpose) is what the journal says of it until it
        settles."""
        with self._lock:
            self._check_next(estimate, label)
            self._next_id += 1
            hold = _Hold(estimate)
            if self.journal is not None:
                hold.provisional = begun_record(
                    replace(
                        call or CallRecord("", "", "", label),
                        input_tokens=estimate.input_tokens,
                        output_tokens=estimate.output_tokens,
                        cost_usd=estimate.cost_usd,
                    )
                )
                append_journal(self.journal, hold.provisional, begun=self._key(self._next_id))
            self._in_flight[self._next_id] = hold
            return Reservation(self._next_id, estimate)

    def retry(self, reservation: Reservation, label: str = "call") -> None:
        """Hold one more attempt of an in-flight call, or raise BudgetExceeded: a retry is
        another request, so it must fit the call budget like a new call (its tokens are held)."""
        with self._lock:
            self._check_next(CallEstimate(0, 0), label)
            hold = self._in_flight[reservation.id]
            hold.attempts += 1
            if self.journal is not None and hold.provisional is not None:
                append_journal(self.journal, hold.provisional, begun=self._key(reservation.id))

    def _key(self, reservation: int) -> str:
        return f"{self._invocation}:{reservation}"

    def _check_next(self, estimate: CallEstimate, label: str) -> None:
        """Refuse one more attempt (needing ``estimate`` on top of what is held) past a limit."""
        held = list(self._in_flight.values())
        calls = self._totals.calls + sum(h.attempts for h in held) + 1
        tokens = self._totals.total_tokens + sum(h.estimate.total_tokens for h in held)
        usd = self._totals.cost_usd + sum(h.estimate.cost_usd for h in held)
        self._check(calls, tokens + estimate.total_tokens, usd + estimate.cost_usd, label)

    def _check(self, calls: int, tokens: int, usd: float, label: str) -> None:
        b = self.budget
        hint = "raise the limit (--max-calls / --max-tokens / --max-usd) or shrink the run"
        if b.max_calls is not None and calls > b.max_calls:
            raise BudgetExceeded(f"{label}: call budget of {b.max_calls} reached", hint=hint)
        if b.max_tokens is not None and tokens > b.max_tokens:
            raise BudgetExceeded(
                f"{label}: this call could take the run to {tokens} tokens, over the "
                f"budget of {b.max_tokens}",
                hint=hint,
            )
        if b.max_usd is not None and usd > b.max_usd:
            raise BudgetExceeded(
                f"{label}: this call could take the run to ${usd:.4f}, over the budget of "
                f"${b.max_usd:.4f}",
                hint=hint,
            )

    def settle(self, reservation: Reservation, record: CallRecord) -> None:
        """Replace the reservation by what the call actually used."""
        with self._lock:
            hold = self._in_flight.pop(reservation.id, None)
            begun = hold is not None and hold.provisional is not None
            self._add(record, settles=self._key(reservation.id) if begun else "")

    def record(self, record: CallRecord) -> None:
        """Account a call that was not reserved (e.g. a health-check ping)."""
        with self._lock:
            self._add(record)

    def _add(self, record: CallRecord, settles: str = "") -> None:
        self._records.append(record)
        self._totals = self._totals.plus(record)
        if self.journal is not None:
            append_journal(self.journal, record, settles=settles)

    @property
    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    @property
    def totals(self) -> Totals:
        with self._lock:
            return self._totals

    def totals_by(self, key: str = "role") -> dict[str, Totals]:
        grouped: dict[str, Totals] = {}
        for record in self.records:
            name = str(getattr(record, key))
            grouped[name] = grouped.get(name, Totals()).plus(record)
        return grouped

    def summary(self) -> dict[str, Any]:
        totals = self.totals
        return {
            "budget": asdict(self.budget),
            "totals": {**asdict(totals), "total_tokens": totals.total_tokens},
            "by_role": {k: asdict(v) for k, v in self.totals_by("role").items()},
            "by_purpose": {k: asdict(v) for k, v in self.totals_by("purpose").items()},
        }

    def write_json(self, path: Path, extra: Mapping[str, Any] | None = None) -> None:
        """Write the summary and every call record (for the run directory / nightly report)."""
        payload = {**self.summary(), "calls": [asdict(r) for r in self.records], **(extra or {})}
        atomic_write_json(path, payload)
