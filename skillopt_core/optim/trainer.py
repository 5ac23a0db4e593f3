"""The SkillOpt training loop: epochs x batches of rollout -> reflect -> aggregate -> select ->
update -> gate, with slow/meta updates at epoch boundaries.

Resumable: after every completed step the whole loop state is written atomically to
``runtime_state.json``; re-running the same command continues after the last completed step and,
because every random choice is derived from (seed, epoch, step), ends with the same skill. A step
or epoch close cut short (a kill, a budget) is not committed, and is redone whole on resume.

The loop is split by job: :mod:`.state` (what is kept on disk to resume), :mod:`.context` (the
live loop: gate, accept, commit, roll back), :mod:`.step` (one step) and :mod:`.epoch` (closing an
epoch). This module schedules them and reports the run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillopt_core.backends._protocol import BudgetExceeded
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import TrainConfig
from skillopt_core.envs.base import Environment
from skillopt_core.errors import SkillOptError
from skillopt_core.optim.context import LoopContext
from skillopt_core.optim.epoch import close_epoch
from skillopt_core.optim.evidence import unusable
from skillopt_core.optim.state import STATE_VERSION, LoopState
from skillopt_core.optim.step import run_step
from skillopt_core.records import Item
from skillopt_core.rundir import RunDir

__all__ = ["STATE_VERSION", "LoopState", "StepCallback", "TrainResult", "Trainer"]


@dataclass(frozen=True)
class TrainResult:
    best_skill: str
    history: list[dict[str, Any]]
    # "" when all epochs ran; "budget: ..." when a hard limit ended the run; "no usable edits: ..."
    # when the optimizer never returned anything usable (the run stops after that step).
    stopped_reason: str
    accepted: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    # Why the run stopped, as the error a front end raises (BudgetExceeded: exit 4,
    # NoEvidenceError: exit 7); None when all epochs ran.
    stop_error: SkillOptError | None = field(default=None, compare=False)


StepCallback = Callable[[dict[str, Any]], None]


class Trainer(LoopContext):
    def __init__(
        self,
        config: TrainConfig,
        env: Environment,
        roles: Roles,
        run_dir: RunDir,
        seed_skill: str,
        on_step: StepCallback | None = None,
        *,
        data_identity: str = "",
    ) -> None:
        """``data_identity`` (e.g. :func:`~skillopt_core.envs.base.items_digest`) is recorded in
        the run config; resuming with different items is refused, since cached evaluations and the
        history would belong to other data."""
        super().__init__(config, env, roles, run_dir, seed_skill, data_identity=data_identity)
        self.on_step = on_step or (lambda record: None)

    @property
    def steps_per_epoch(self) -> int:
        return max(1, math.ceil(len(self.env.items("train")) / self.config.batch_size))

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.config.epochs

    def _batch(self, step: int) -> list[Item]:
        epoch, index = divmod(step, self.steps_per_epoch)
        items = sorted(self.env.items("train"), key=lambda item: item.id)
        random.Random(self.config.seed * 1_000_003 + epoch).shuffle(items)
        size = self.config.batch_size
        return items[index * size : (index + 1) * size]

    def fit(self) -> TrainResult:
        self.state.stopped_reason = ""  # a resumed run gets a fresh chance (e.g. a raised budget)
        self.checkpoint()  # with whatever the caller seeded (a night's carried buffer and notes)
        stop: SkillOptError | None = None
        try:
            stop = self._loop()
        except BudgetExceeded as exc:
            self.roll_back()  # what the cut-short step or epoch close changed is redone
            stop = exc
        if stop is not None:
            prefix = "budget: " if isinstance(stop, BudgetExceeded) else ""
            self.state.stopped_reason = f"{prefix}{stop.message}"
            self.save()
        return TrainResult(
            self.state.best_skill,
            self.history,
            self.state.stopped_reason,
            self.state.accepted,
            self.rejected.to_json(),
            stop,
        )

    def _loop(self) -> SkillOptError | None:
        """Run the remaining steps and epoch closes; the error to stop with, if any."""
        optimizer = f"the optimizer {self.roles.optimizer.name}:{self.roles.optimizer.model}"
        while self.state.next_step < self.total_steps:
            step = self.state.next_step
            epoch = step // self.steps_per_epoch
            if epoch > self.state.epochs_closed:
                close_epoch(self, self.state.epochs_closed)
                continue
            budget = self.config.lr.budget(step, self.total_steps)
            record = run_step(self, step, epoch, self._batch(step), budget)
            self.history.append(record)
            self.state.next_step = step + 1
            self.save()
            self.on_step(record)
            nothing = unusable(self.history, optimizer)
            if nothing is not None:
                return nothing
        if self.state.epochs_closed < self.config.epochs:
            close_epoch(self, self.config.epochs - 1)
        return unusable(self.history, optimizer)
