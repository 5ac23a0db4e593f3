"""Backends behind one protocol, created by name through one registry.

A backend spec is ``name`` or ``name:model`` (``openai:gpt-5.5``, ``claude-cli:sonnet``, ``mock``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from skillopt_core.backends._protocol import (
    Backend,
    BackendError,
    BackendUnavailable,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    HandoffPending,
    Message,
    Usage,
)
from skillopt_core.errors import UsageError
from skillopt_core.registry import Registry

BackendFactory = Callable[["BackendSpec", Mapping[str, Any]], Backend]

BACKENDS: Registry[BackendFactory] = Registry("backend")


@dataclass(frozen=True)
class BackendSpec:
    name: str
    model: str = ""

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        name, _, model = text.strip().partition(":")
        if not name:
            raise UsageError(
                f"empty backend spec {text!r}; use NAME or NAME:MODEL, e.g. mock or openai:gpt-5.5"
            )
        return cls(name=name, model=model)

    def __str__(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name


def _load_builtin_backends() -> None:
    """Import modules that register backends. Heavy SDK imports stay inside each backend's calls."""
    from skillopt_core.backends import builtin, mock  # noqa: F401


def known_spec(spec: BackendSpec | str) -> BackendSpec:
    """``spec`` parsed and checked against the registry without creating the backend (an
    :class:`~skillopt_core.registry.UnknownEntryError`, a usage error, names the known ones)."""
    if isinstance(spec, str):
        spec = BackendSpec.parse(spec)
    _load_builtin_backends()
    BACKENDS.get(spec.name)
    return spec


def create_backend(spec: BackendSpec | str, options: Mapping[str, Any] | None = None) -> Backend:
    """Build a backend from its spec; ``options`` come from config (base_url, timeout, paths...)."""
    if isinstance(spec, str):
        spec = BackendSpec.parse(spec)
    _load_builtin_backends()
    factory = BACKENDS.get(spec.name)
    return factory(spec, dict(options or {}))


__all__ = [
    "BACKENDS",
    "Backend",
    "BackendError",
    "BackendSpec",
    "BackendUnavailable",
    "BudgetExceeded",
    "Completion",
    "CompletionRequest",
    "HandoffPending",
    "Message",
    "Usage",
    "create_backend",
    "known_spec",
]
