"""The wrapper every role backend runs inside: redact → reserve budget → pool slot → retries →
account. Backends themselves stay simple: one attempt, errors translated to our types.

Every attempt is a request the server sees, so each retry is held against the call budget
before it is made (:meth:`.budget.Ledger.retry`): a failing or hostile server cannot turn a
budget of N calls into N times the retry count of requests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from skillopt_core.backends._protocol import (
    Backend,
    BackendError,
    BackendUnavailable,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    Message,
    Usage,
)
from skillopt_core.backends.budget import (
    CallEstimate,
    CallRecord,
    Ledger,
    Reservation,
    estimate_call,
)
from skillopt_core.backends.options import deadline_seconds
from skillopt_core.backends.pricing import FREE, Price
from skillopt_core.backends.retry import (
    PassingUnavailable,
    RetriesExhausted,
    RetryPolicy,
    RetryStats,
    TransientError,
    call_with_retries,
)
from skillopt_core.errors import UsageError
from skillopt_core.markers import ENGINE_MARKER, is_engine_text
from skillopt_core.redaction import redact

DEFAULT_CONCURRENCY = 8


def _number(options: Mapping[str, Any], key: str, default: float) -> float:
    value = options.get(key)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except (TypeError, ValueError):
        raise UsageError(f"option {key}={value!r} must be a number") from None


@dataclass(frozen=True)
class CallPolicy:
    """How calls to one backend are run: pool size and retry policy (from backend options; the
    ``deadline`` a server's ``Retry-After`` must end within is the backend's own)."""

    concurrency: int = DEFAULT_CONCURRENCY
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CallPolicy:
        concurrency = int(_number(options, "concurrency", DEFAULT_CONCURRENCY))
        attempts = int(_number(options, "max_retries", RetryPolicy.max_attempts - 1)) + 1
        if concurrency < 1 or attempts < 1:
            raise UsageError("options concurrency must be >= 1 and max_retries >= 0")
        retry = RetryPolicy(
            max_attempts=attempts,
            base_s=_number(options, "retry_base_s", RetryPolicy.base_s),
            cap_s=_number(options, "retry_cap_s", RetryPolicy.cap_s),
            deadline_s=deadline_seconds(options),
        )
        return cls(concurrency=concurrency, retry=retry)


def redact_request(request: CompletionRequest) -> CompletionRequest:
    """The request with every outbound text passed through the one redaction hook, and the first
    user message stamped with the engine marker, so a harness that records the prompt as a
    session of its own never has it mined as the developer's request."""
    messages = [Message(m.role, redact(m.content)) for m in request.messages]
    first_user = next((i for i, m in enumerate(messages) if m.role == "user"), None)
    if first_user is not None and not is_engine_text(messages[first_user].content):
        message = messages[first_user]
        messages[first_user] = Message(message.role, f"{ENGINE_MARKER}\n{message.content}")
    system = redact(request.system) if request.system else request.system
    return replace(request, messages=tuple(messages), system=system)


def _transient(exc: BaseException) -> TransientError | None:
    """Generic transport failures that escape a backend's own translation."""
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return TransientError(f"{type(exc).__name__}: {exc}")
    return None


class ManagedBackend:
    """A role's view of a backend. Implements the Backend protocol; safe to share across threads.

    ``slots`` is the backend instance's concurrency pool; two roles on one backend share it.
    """

    def __init__(
        self,
        inner: Backend,
        ledger: Ledger,
        *,
        role: str,
        policy: CallPolicy | None = None,
        price: Price = FREE,
        slots: threading.Semaphore | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.role = role
        self.ledger = ledger
        self.policy = policy or CallPolicy()
        self.price = price
        self.slots = slots or threading.BoundedSemaphore(self.policy.concurrency)
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"ManagedBackend({self.role}={self.name}:{self.model})"

    def health_check(self) -> None:
        """The backend's own check, retried like a call while its failure may pass (a 503 or a
        429 as the night starts must not end it). A backend with a ``ping`` attribute (the API
        backends, which answer a completion when the server lists no models) pings through
        :meth:`complete`: the ping is billed, so it is metered and budgeted like any call."""
        if hasattr(self.inner, "ping"):
            self.inner.ping = self.complete
        last: list[PassingUnavailable] = []

        def once() -> None:
            try:
                self.inner.health_check()
            except PassingUnavailable as exc:
                last[:] = [exc]
                raise TransientError(
                    exc.message, hint=exc.hint, retry_after=exc.retry_after
                ) from exc
            except BackendError:
                raise
            except Exception as exc:
                raise BackendUnavailable(
                    redact(f"{self.name}: health check failed: {type(exc).__name__}: {exc}"),
                    hint="check the backend's configuration (base URL, key, executable)",
                ) from exc

        try:
            call_with_retries(
                once, self.policy.retry, sleep=self._sleep, label=f"{self.name} health check"
            )
        except RetriesExhausted as exc:
            raise (last[-1] if last else exc) from exc

    def complete(self, request: CompletionRequest) -> Completion:
        request = redact_request(request)
        estimate = estimate_call(request, self.price)
        label = f"{self.role} {self.name}:{self.model or 'default'} ({request.purpose})"
        who = CallRecord(self.role, self.name, self.model, request.purpose)
        reservation = self.ledger.reserve(estimate, label, who)
        stats = RetryStats()
        started = time.monotonic()
        try:
            completion = call_with_retries(
                lambda: self._attempt(request),
                self.policy.retry,
                sleep=self._sleep,
                stats=stats,
                label=label,
                before_retry=lambda failed: self._hold_retry(reservation, label, failed),
            )
        except BaseException as exc:
            self.ledger.settle(reservation, self._record(request, stats, started, error=exc))
            raise
        try:
            completion = self._accounted(completion, estimate, started)
        except BaseException as exc:  # the reply came (and is billed): count its estimate
            billed = Completion("", Usage(estimate.input_tokens, estimate.output_tokens))
            record = self._record(request, stats, started, billed, error=exc)
            self.ledger.settle(reservation, replace(record, cost_usd=estimate.cost_usd))
            raise
        self.ledger.settle(reservation, self._record(request, stats, started, completion))
        return completion

    def _accounted(
        self, completion: Completion, estimate: CallEstimate, started: float
    ) -> Completion:
        """``completion`` with the usage and cost the ledger counts: the reported usage when it
        is made of real token counts, else (none reported, or absurd figures) an estimate."""
        usage = completion.usage.checked() or Usage()
        if usage.total_tokens == 0:  # the reply carried no usage: count an estimate, not nothing
            usage = Usage(estimate.input_tokens, -(-len(completion.text) // 4))
        cost = completion.cost_usd
        if not (isinstance(cost, (int, float)) and 0 < cost < float("inf")):
            cost = self.price.cost(usage.input_tokens, usage.output_tokens)
        return replace(
            completion,
            usage=usage,
            cost_usd=cost,
            latency_s=completion.latency_s or time.monotonic() - started,
            model=completion.model or self.model,
        )

    def _hold_retry(self, reservation: Reservation, label: str, failed: TransientError) -> None:
        """Count the next attempt against the budget, or end the call saying why it was retried."""
        try:
            self.ledger.retry(reservation, label)
        except BudgetExceeded as stop:
            stop.args = (f"{stop.message} (retrying after: {failed.message})",)
            raise

    def _attempt(self, request: CompletionRequest) -> Completion:
        with self.slots:
            try:
                return self.inner.complete(request)
            except BackendError:
                raise
            except Exception as exc:
                transient = _transient(exc)
                if transient is None:
                    raise
                raise transient from exc

    def _record(
        self,
        request: CompletionRequest,
        stats: RetryStats,
        started: float,
        completion: Completion | None = None,
        error: BaseException | None = None,
    ) -> CallRecord:
        usage = completion.usage if completion else Usage()
        return CallRecord(
            role=self.role,
            backend=self.name,
            model=(completion.model if completion else "") or self.model,
            purpose=request.purpose,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=completion.cost_usd if completion else 0.0,
            latency_s=time.monotonic() - started,
            attempts=max(1, stats.attempts),
            ok=error is None,
            error="" if error is None else redact(f"{type(error).__name__}: {error}"),
        )
