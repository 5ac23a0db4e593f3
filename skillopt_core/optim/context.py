"""The live training loop's shared context: what a step and an epoch close read and change.

It opens the run (evaluation cache, history, resume state, rejected-edit buffer), gates a
candidate against the current skill, accepts one as a new skill version, and commits the loop
(:func:`~skillopt_core.optim.state.save`). A step or epoch close that a budget cuts short is
forgotten with :meth:`LoopContext.roll_back`, so the resumed run redoes it whole.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from skillopt_core.backends.runtime import Roles
from skillopt_core.config import TrainConfig
from skillopt_core.envs.base import Environment
from skillopt_core.optim import state as saved
from skillopt_core.optim.buffer import RejectedBuffer, RejectedEdit
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.gate import decide, over_budget
from skillopt_core.records import Decision
from skillopt_core.rundir import RunDir, atomic_write_json, atomic_write_text


class LoopContext:
    def __init__(
        self,
        config: TrainConfig,
        env: Environment,
        roles: Roles,
        run_dir: RunDir,
        seed_skill: str,
        *,
        data_identity: str = "",
    ) -> None:
        self.config = config
        self.env = env
        self.roles = roles
        self.run = run_dir
        self.seed_skill = seed_skill
        self.data_identity = data_identity
        self._cache: dict[str, dict[str, Any]] = saved.read_shaped(
            run_dir.eval_cache,
            dict,
            hint=f"delete {run_dir.eval_cache} (it only caches evaluations; they are redone)",
        )
        self.evaluator = Evaluator(
            env,
            roles.target,
            samples=config.eval_samples,
            workers=config.workers,
            cache=self._cache,
            on_change=lambda: atomic_write_json(run_dir.eval_cache, self._cache),
        )
        history = saved.load_history(run_dir)
        identity = {"version": saved.STATE_VERSION, **config.training_identity()}
        if data_identity:
            identity["data"] = data_identity
        self.state = saved.open_state(run_dir, identity, seed_skill, workers=config.workers)
        self.history = saved.committed(history, self.state)
        self.rejected = saved.load_rejected(run_dir, self.state)
        self._committed: tuple[saved.LoopState, tuple[RejectedEdit, ...]] = (self.state, ())
        self.checkpoint()

    def checkpoint(self) -> None:
        """Remember the loop as it stands as the point :meth:`roll_back` returns to (a caller
        may seed a fresh run's rejected buffer or notes before training: that is kept)."""
        self._committed = (copy.deepcopy(self.state), tuple(self.rejected.entries))

    def save(self) -> None:
        """Commit the loop as it stands (the point a resumed run continues from)."""
        saved.save(self.run, self.state, self.history, self.rejected)
        self.checkpoint()

    def roll_back(self) -> None:
        """Forget what was changed since the last checkpoint (a slow update accepted before the
        meta update ran out of budget, say): the resumed run redoes that step or epoch close."""
        state, entries = self._committed
        self.state = copy.deepcopy(state)
        self.rejected = RejectedBuffer(entries)

    def gate(self, candidate: str) -> tuple[Decision, float]:
        """Weigh ``candidate`` against the current skill on the validation split."""
        current = self.evaluator.evaluate(self.state.current_skill, "val")
        too_big = over_budget(self.state.current_skill, candidate, self.config.gate)
        if too_big:  # refused unevaluated: a budget no score can buy back (no gate bypasses it)
            score = current.metric(self.config.gate.metric, self.config.gate.mixed_weight)
            return Decision(False, self.config.gate.metric, score, score, too_big, {}), 0.0
        proposed = self.evaluator.evaluate(candidate, "val")
        decision = decide(current, proposed, self.config.gate)
        if not self.config.gated:  # the "no gate" ablation: record the evidence, accept anyway
            decision = replace(decision, accepted=True, reason=f"ungated: {decision.reason}")
        return decision, decision.candidate - decision.current

    def accept(self, candidate: str) -> int:
        """Make ``candidate`` the current and best skill; its new version number."""
        self.state.current_skill = candidate
        self.state.best_skill = candidate
        self.state.skill_version += 1
        atomic_write_text(self.run.skill_version(self.state.skill_version), candidate)
        return self.state.skill_version
