"""A run's result does not depend on the order its items were listed in (the lines of a user's
split files, the order an environment lists them): minibatches were drawn from the listing order,
so the same items in another order trained another skill."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt_core.envs.qa import QAEnvironment
from skillopt_core.optim.trainer import Trainer
from skillopt_core.records import Item
from skillopt_core.rundir import RunDir
from tests.core.test_trainer import FAST, SEED_SKILL, TOY, mock_roles


class Reversed:
    """The toy environment, listing every split's items in reverse."""

    def __init__(self, inner: QAEnvironment) -> None:
        self._inner = inner

    def items(self, split: str) -> list[Item]:
        return list(reversed(self._inner.items(split)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _fit(out: Path, env: Any) -> tuple[str, list[dict[str, Any]]]:
    Trainer(FAST, env, mock_roles(), RunDir(out), SEED_SKILL).fit()
    history = json.loads((out / "history.json").read_text())
    return (out / "best_skill.md").read_text(), [
        {k: h[k] for k in ("step", "accepted")} for h in history
    ]


def test_the_same_items_in_another_order_train_the_same_skill(tmp_path: Path) -> None:
    listed = _fit(tmp_path / "listed", QAEnvironment(TOY))
    reversed_ = _fit(tmp_path / "reversed", Reversed(QAEnvironment(TOY)))
    assert listed == reversed_
