"""Open the optimizer and target backends for a run: create, health-check, and meter them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillopt_core.backends import Backend, BackendSpec, create_backend


@dataclass(frozen=True)
class Budget:
    """Hard per-run limits, checked before each call (None = unlimited)."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_usd: float | None = None


@dataclass(frozen=True)
class Roles:
    optimizer: Backend
    target: Backend


def open_roles(
    optimizer: str | BackendSpec,
    target: str | BackendSpec,
    options: Mapping[str, Any] | None = None,
    budget: Budget | None = None,
    *,
    check_health: bool = True,
) -> Roles:
    """Create both role backends; a dead backend raises BackendUnavailable before any work starts."""
    opts = dict(options or {})
    roles = Roles(
        optimizer=create_backend(optimizer, opts.get("optimizer", opts)),
        target=create_backend(target, opts.get("target", opts)),
    )
    if check_health:
        roles.optimizer.health_check()
        if roles.target is not roles.optimizer:
            roles.target.health_check()
    return roles
