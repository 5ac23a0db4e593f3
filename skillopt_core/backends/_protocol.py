"""The backend protocol: one call, ``complete(request) -> Completion``.

Every model the optimizer talks to (an API, a harness CLI, the deterministic mock) implements it.
Roles (optimizer vs target) are just two configured backends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, runtime_checkable

from skillopt_core.errors import EXIT_BUDGET, EXIT_HANDOFF, SkillOptError

Role = Literal["system", "user", "assistant"]

EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class CompletionRequest:
    """A single model call.

    ``purpose`` names the pipeline stage ("rollout", "reflect", "slow_update", "judge", ...).
    ``metadata`` carries structured context that real backends ignore; the deterministic mock
    world reads it instead of parsing prose (like a simulator reading its own state).
    ``json_schema``, when set, asks for a JSON reply matching it.
    """

    messages: tuple[Message, ...]
    system: str | None = None
    max_tokens: int = 2048
    temperature: float = 0.0
    json_schema: Mapping[str, Any] | None = None
    purpose: str = "generic"
    metadata: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    @classmethod
    def of(cls, prompt: str, **kwargs: Any) -> CompletionRequest:
        return cls(messages=(Message("user", prompt),), **kwargs)

    @property
    def prompt_text(self) -> str:
        """All message text joined, for backends that take a single prompt (CLIs) and for estimates."""
        parts = [self.system] if self.system else []
        parts.extend(m.content for m in self.messages)
        return "\n\n".join(parts)


MAX_TOKENS_PER_CALL = 10**9
"""More tokens than any one call reports; a larger figure is a broken or hostile server's."""


def token_count(value: object) -> int | None:
    """``value`` as a token figure a reply reported: a whole number from 0 to
    :data:`MAX_TOKENS_PER_CALL` (an integral float counts), else None (null, negative, text, a
    fraction, a bool, absurdly large), so that the caller counts an estimate instead."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_TOKENS_PER_CALL:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_TOKENS_PER_CALL else None


def token_total(*values: object) -> int | None:
    """The sum of several token figures (a missing one is 0), or None when any is no token
    count (:func:`token_count`): prompt tokens reported as plain, cache-written and cache-read."""
    counts = [token_count(value or 0) for value in values]
    return None if None in counts else sum(c for c in counts if c is not None)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def checked(self) -> Usage | None:
        """This usage if both figures are real token counts (:func:`token_count`), else None."""
        counts = (token_count(self.input_tokens), token_count(self.output_tokens))
        if counts[0] is None or counts[1] is None:
            return None
        return Usage(counts[0], counts[1])

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )


@dataclass(frozen=True)
class Completion:
    """A reply. ``truncated``: the model stopped at the request's ``max_tokens`` (a server said
    so), so the text is cut short; a caller that parses it can say why it does not parse."""

    text: str
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    model: str = ""
    latency_s: float = 0.0
    truncated: bool = False


class BackendError(SkillOptError, RuntimeError):
    """A backend could not produce a completion. ``hint`` tells the user what to do."""


class BackendUnavailable(BackendError):
    """The backend is down, unauthenticated or misconfigured: fail the run loudly, never score 0."""


class BudgetExceeded(BackendError):
    """A hard budget (calls / tokens / USD) would be exceeded by the next call."""

    exit_code = EXIT_BUDGET


class HandoffPending(BackendError):
    """Prompts were written for an outside agent to answer; the run resumes on the next invocation."""

    exit_code = EXIT_HANDOFF


@runtime_checkable
class Backend(Protocol):
    name: str
    model: str

    def complete(self, request: CompletionRequest) -> Completion: ...

    def health_check(self) -> None:
        """Raise BackendUnavailable with a fix-it hint when the backend cannot work."""
        ...
