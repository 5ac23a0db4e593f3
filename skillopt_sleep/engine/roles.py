"""The night's backends: the optimizer and target roles and the judge, on one ledger and budget."""

from __future__ import annotations

from typing import Any

from skillopt_core.backends.runtime import Budget, Roles, open_roles
from skillopt_sleep.engine.config import SleepConfig


def _budget(config: SleepConfig) -> Budget:
    b = config.budget
    return Budget(b.max_calls or None, b.max_tokens or None, b.max_usd or None)


def open_night_roles(config: SleepConfig) -> tuple[Roles, Any]:
    """The optimizer and target roles (health-checked) and the judge, sharing one ledger."""
    options = {"seed": config.night.seed, **config.backends.options}
    roles = open_roles(config.backends.optimizer, config.backends.target, options, _budget(config))
    judge = None
    if config.backends.judge:
        judge = open_roles(
            config.backends.judge, config.backends.judge, options, ledger=roles.ledger
        ).optimizer
    return roles, judge
