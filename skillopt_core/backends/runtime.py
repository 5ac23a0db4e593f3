"""Open the optimizer and target backends for a run: create, health-check, and meter them.

Each role's backend is wrapped in a :class:`ManagedBackend` (redaction, hard budget, bounded
concurrency pool, retries with backoff, accounting). Both roles write to one :class:`Ledger`,
which enforces the run's :class:`Budget` and is returned on :class:`Roles`.

Options: a flat mapping shared by both roles, and per-role mappings under ``optimizer`` and
``target`` that override it for that role. Keys understood here: ``concurrency``, ``max_retries``, ``retry_base_s``,
``retry_cap_s``, ``prices`` (a TOML file), ``price_input`` / ``price_output`` (USD per 1M
tokens); everything is also passed on to the backend factory (``timeout``, ``base_url``, ...).
A key or role table that no role's backend reads is refused (:mod:`.options`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from skillopt_core.backends import Backend, BackendSpec, _load_builtin_backends, create_backend
from skillopt_core.backends.budget import Budget, Ledger
from skillopt_core.backends.managed import CallPolicy, ManagedBackend
from skillopt_core.backends.options import check_options
from skillopt_core.backends.pricing import load_prices, price_for

__all__ = ["Budget", "Ledger", "Roles", "open_roles", "role_options"]


@dataclass(frozen=True)
class Roles:
    optimizer: Backend
    target: Backend
    ledger: Ledger = field(default_factory=Ledger)


def role_options(options: Mapping[str, Any] | None, role: str) -> dict[str, Any]:
    """The options one role sees: the shared keys, overridden by its own sub-mapping if any (a
    shared ``timeout`` still applies to a role whose table only sets its ``base_url``)."""
    opts = dict(options or {})
    own = opts.get(role)
    shared = {k: v for k, v in opts.items() if k not in ("optimizer", "target")}
    return {**shared, **own} if isinstance(own, Mapping) else shared


def open_roles(
    optimizer: str | BackendSpec,
    target: str | BackendSpec,
    options: Mapping[str, Any] | None = None,
    budget: Budget | None = None,
    *,
    check_health: bool = True,
    ledger: Ledger | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Roles:
    """Create both role backends; a dead backend raises BackendUnavailable before any work starts."""
    ledger = ledger or Ledger(budget)
    specs = {
        "optimizer": BackendSpec.parse(optimizer) if isinstance(optimizer, str) else optimizer,
        "target": BackendSpec.parse(target) if isinstance(target, str) else target,
    }
    _load_builtin_backends()
    check_options(options or {}, {role: spec.name for role, spec in specs.items()})
    role_opts = {role: role_options(options, role) for role in specs}
    same = str(specs["optimizer"]) == str(specs["target"]) and (
        role_opts["optimizer"] == role_opts["target"]
    )
    prices = load_prices(role_opts["optimizer"].get("prices") or role_opts["target"].get("prices"))
    shared_slots: threading.Semaphore | None = None
    managed: dict[str, ManagedBackend] = {}
    for role, spec in specs.items():
        opts = role_opts[role]
        policy = CallPolicy.from_options(opts)
        inner = create_backend(spec, opts)
        slots = shared_slots if same and shared_slots is not None else None
        managed[role] = ManagedBackend(
            inner,
            ledger,
            role=role,
            policy=policy,
            price=price_for(inner.name, inner.model or spec.model, opts, prices),
            slots=slots,
            sleep=sleep,
        )
        shared_slots = managed[role].slots
    if check_health:
        managed["optimizer"].health_check()
        if not same:
            managed["target"].health_check()
    return Roles(optimizer=managed["optimizer"], target=managed["target"], ledger=ledger)
