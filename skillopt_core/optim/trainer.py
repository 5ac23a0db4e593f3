"""The SkillOpt training loop: epochs x batches of rollout -> reflect -> aggregate -> select ->
update -> gate, with slow/meta updates at epoch boundaries.

Resumable: after every completed step the whole loop state is written atomically to
``runtime_state.json``; re-running the same command continues after the last completed step and,
because every random choice is derived from (seed, epoch, step), ends with the same skill.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, get_type_hints

from skillopt_core.backends._protocol import BudgetExceeded
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import ConfigError, TrainConfig
from skillopt_core.envs.base import Environment
from skillopt_core.errors import SkillOptError, StorageError
from skillopt_core.optim.aggregate import aggregate
from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.optim.credit import assign_credit, prune_bundle
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.evidence import unusable
from skillopt_core.optim.gate import decide, over_budget, room_note
from skillopt_core.optim.reflect import make_minibatches, reflect_all
from skillopt_core.optim.select import select_edits
from skillopt_core.optim.slow import meta_update, slow_update
from skillopt_core.records import Decision, Edit, Item
from skillopt_core.rundir import RunDir, atomic_write_json, atomic_write_text, read_json
from skillopt_core.skill import apply_edits

STATE_VERSION = 1

_RESTART = "the run's resume files are damaged: choose a new --out-root (or delete this one)"


@dataclass
class LoopState:
    """Everything needed to resume; serialised after each completed step."""

    next_step: int = 0
    epochs_closed: int = 0
    skill_version: int = 0
    current_skill: str = ""
    best_skill: str = ""
    epoch_start_skill: str = ""
    meta_notes: str = ""
    rejected: list[dict[str, Any]] = field(default_factory=list)
    accepted: list[dict[str, Any]] = field(default_factory=list)
    stopped_reason: str = ""

    @classmethod
    def from_json(cls, raw: Any) -> LoopState:
        """A saved state, checked field by field; ``ValueError`` names the first bad one (valid
        JSON of the wrong shape must not surface later as an ``AttributeError``)."""
        if not isinstance(raw, dict):
            raise ValueError("it is not a JSON object")
        hints = get_type_hints(cls)
        for name, value in raw.items():
            kind = hints.get(name)
            if kind is None:
                raise ValueError(f"unknown field {name!r}")
            if kind is int:
                ok = type(value) is int and value >= 0
            elif kind is str:
                ok = isinstance(value, str)
            else:  # list[dict[str, Any]]
                ok = isinstance(value, list) and all(isinstance(v, dict) for v in value)
            if not ok:
                raise ValueError(f"{name} is {json.dumps(value)[:40]}")
        return cls(**raw)


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

Shape = TypeVar("Shape", dict[str, Any], list[Any])


def _read_shaped(path: Path, shape: type[Shape], *, hint: str) -> Shape:
    """The JSON ``shape`` (dict or list) in ``path``, empty when absent; another value is damage."""
    value = read_json(path, None, hint=hint)
    if value is None:
        return shape()
    if not isinstance(value, shape):
        raise StorageError(
            f"{path} is damaged: it does not hold a JSON {shape.__name__}", hint=hint
        )
    return value


class Trainer:
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
        self.config = config
        self.env = env
        self.roles = roles
        self.run = run_dir
        self.seed_skill = seed_skill
        self.data_identity = data_identity
        self.on_step = on_step or (lambda record: None)
        self._cache: dict[str, dict[str, Any]] = _read_shaped(
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
        self.history: list[dict[str, Any]] = _read_shaped(run_dir.history, list, hint=_RESTART)
        if not all(isinstance(record, dict) for record in self.history):
            raise StorageError(
                f"{run_dir.history} is damaged: a step is not a record", hint=_RESTART
            )
        self.state = self._load_state()
        try:
            self.rejected = RejectedBuffer.from_json(self.state.rejected)
        except (KeyError, TypeError, ValueError):
            raise StorageError(
                f"{self.run.state} is damaged: a rejected edit is not a record", hint=_RESTART
            ) from None

    def _load_state(self) -> LoopState:
        saved_config = read_json(self.run.config, hint=_RESTART)
        identity = {"version": STATE_VERSION, **self.config.training_identity()}
        if self.data_identity:
            identity["data"] = self.data_identity
        if saved_config is not None:
            self._check_resume(saved_config, identity)
        raw = read_json(self.run.state, hint=_RESTART)
        if raw is None:
            atomic_write_json(self.run.config, {**identity, "workers": self.config.workers})
            state = LoopState(
                current_skill=self.seed_skill,
                best_skill=self.seed_skill,
                epoch_start_skill=self.seed_skill,
            )
            atomic_write_text(self.run.skill_version(0), self.seed_skill)
            return state
        try:
            return LoopState.from_json(raw)
        except ValueError as exc:
            raise StorageError(
                f"{self.run.state} is damaged: it does not hold a resume state ({exc})",
                hint=_RESTART,
            ) from None

    def _check_resume(self, saved_config: Any, identity: dict[str, Any]) -> None:
        if not isinstance(saved_config, dict):
            raise StorageError(f"{self.run.config} is damaged", hint=_RESTART)
        saved = {k: v for k, v in saved_config.items() if k not in ("workers", "backends")}
        saved_data = saved.pop("data", None)
        settings = {k: v for k, v in identity.items() if k != "data"}
        if saved != settings:
            raise ConfigError(
                f"{self.run.root} holds a run with different settings; "
                "re-run with the same config to resume, or choose a new --out-root"
            )
        if saved_data is not None and "data" in identity and saved_data != identity["data"]:
            raise ConfigError(
                f"{self.run.root} holds a run trained on different items (another --split-dir, "
                "or its items.json files changed)",
                hint="resume with the original split dir, or choose a new --out-root",
            )

    def _save(self) -> None:
        self.state.rejected = self.rejected.to_json()
        atomic_write_json(self.run.history, self.history)
        atomic_write_text(self.run.best_skill, self.state.best_skill)
        atomic_write_json(self.run.state, asdict(self.state))

    @property
    def steps_per_epoch(self) -> int:
        return max(1, math.ceil(len(self.env.items("train")) / self.config.batch_size))

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.config.epochs

    def _batch(self, step: int) -> list[Item]:
        epoch, index = divmod(step, self.steps_per_epoch)
        items = list(self.env.items("train"))
        random.Random(self.config.seed * 1_000_003 + epoch).shuffle(items)
        size = self.config.batch_size
        return items[index * size : (index + 1) * size]

    def fit(self) -> TrainResult:
        self.state.stopped_reason = ""  # a resumed run gets a fresh chance (e.g. a raised budget)
        stop: SkillOptError | None = None
        try:
            stop = self._loop()
        except BudgetExceeded as exc:
            stop = exc
        if stop is not None:
            prefix = "budget: " if isinstance(stop, BudgetExceeded) else ""
            self.state.stopped_reason = f"{prefix}{stop.message}"
            self._save()
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
                self._close_epoch(self.state.epochs_closed)
                continue
            record = self._step(step, epoch)
            self.history.append(record)
            self.state.next_step = step + 1
            self._save()
            self.on_step(record)
            nothing = unusable(self.history, optimizer)
            if nothing is not None:
                return nothing
        if self.state.epochs_closed < self.config.epochs:
            self._close_epoch(self.config.epochs - 1)
        return unusable(self.history, optimizer)

    def _gate(self, candidate: str) -> tuple[Decision, float]:
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

    def _accept(self, candidate: str) -> int:
        self.state.current_skill = candidate
        self.state.best_skill = candidate
        self.state.skill_version += 1
        atomic_write_text(self.run.skill_version(self.state.skill_version), candidate)
        return self.state.skill_version

    def _step(self, step: int, epoch: int) -> dict[str, Any]:
        cfg = self.config
        step_dir = self.run.step(step)
        budget = cfg.lr.budget(step, self.total_steps)
        skill = self.state.current_skill
        scored = self.evaluator.run(skill, self._batch(step))
        atomic_write_json(
            step_dir / "rollouts.json",
            [
                {
                    "item_id": s.item.id,
                    "response": s.rollout.response,
                    "hard": s.score.hard,
                    "soft": s.score.soft,
                    "reason": s.score.reason,
                }
                for s in scored
            ],
        )
        outcomes = reflect_all(
            self.roles.optimizer,
            skill,
            make_minibatches(scored, cfg.minibatch_size),
            budget=budget,
            rejected=self.rejected,
            meta_notes=self.state.meta_notes if cfg.meta_skill else "",
            step=step,
            workers=cfg.workers,
            room=room_note(skill, cfg.gate),
        )
        blocked = self.rejected.blocked_keys()
        proposed = [e for o in outcomes for e in o.edits]
        merged = aggregate([e for e in proposed if e.key() not in blocked])
        selected = select_edits(merged, budget, blocked)
        atomic_write_json(
            step_dir / "patches.json",
            {
                "budget": budget,
                "minibatches": [
                    {
                        "kind": o.minibatch.kind,
                        "index": o.minibatch.index,
                        "size": len(o.minibatch.cases),
                        "edits": [e.to_json() for e in o.edits],
                        "dropped": o.dropped_reason,
                    }
                    for o in outcomes
                ],
                "merged": [e.to_json() for e in merged],
                "selected": [e.to_json() for e in selected],
            },
        )
        record: dict[str, Any] = {
            "step": step,
            "epoch": epoch,
            "lr_budget": budget,
            "train_hard": sum(s.score.hard for s in scored) / max(1, len(scored)),
            "failures": sum(1 for s in scored if s.score.hard < 1.0),
            "proposed": len(proposed),
            "selected": len(selected),
            "minibatches": len(outcomes),
            "dropped_minibatches": [o.dropped_reason for o in outcomes if o.dropped_reason],
            "accepted": False,
        }
        if not selected:
            record["decision"] = "no edits to try"
            return record
        report = apply_edits(skill, selected)
        atomic_write_json(
            step_dir / "apply_report.json",
            [
                {"edit": o.edit.to_json(), "applied": o.applied, "reason": o.reason}
                for o in report.outcomes
            ],
        )
        applied = list(report.applied)
        record["applied"] = len(applied)
        if not applied or report.text == skill:
            record["decision"] = "no edit applied"
            return record
        atomic_write_text(step_dir / "candidate.md", report.text)
        too_big = over_budget(skill, report.text, cfg.gate)
        if too_big:  # unweighed, so not blamed: no credit, nothing in the rejected buffer
            record["decision"] = too_big
            return record
        decision, delta = self._gate(report.text)
        atomic_write_json(step_dir / "gate.json", asdict(decision))
        record.update(
            decision=decision.reason, val_current=decision.current, val_candidate=decision.candidate
        )
        if decision.accepted:
            text = report.text
            if cfg.credit and cfg.gated and len(applied) > 1:  # no harmful edit rides along
                pruned = prune_bundle(skill, applied, text, delta, self._gate, budget)
                applied, text = list(pruned.kept), pruned.skill
                for dropped in pruned.dropped:
                    self.rejected.add([dropped.edit], dropped.delta, step)
                record["pruned_edits"] = [c.edit.to_json() for c in pruned.dropped]
            record["accepted"] = True
            record["skill_version"] = self._accept(text)
            self.state.accepted.extend(
                {**e.to_json(), "step": step, "delta": delta} for e in applied
            )
        elif cfg.credit and len(applied) > 1:
            self._credit(skill, applied, delta, step, budget, record)
        else:
            self.rejected.add(applied, delta, step)
            record["rejected_edits"] = [e.to_json() for e in applied]
        return record

    def _credit(
        self, skill: str, applied: list[Edit], delta: float, step: int, limit: int, record: Any
    ) -> None:
        """A rejected bundle: judge its edits alone before blaming them (optim/credit.py)."""
        outcome = assign_credit(skill, applied, self._gate, limit)
        record["credit"] = outcome.to_json()
        if outcome.skill is not None:
            record["accepted"] = True
            record["skill_version"] = self._accept(outcome.skill)
            self.state.accepted.extend(
                {**c.edit.to_json(), "step": step, "delta": c.delta} for c in outcome.accepted
            )
        for blamed in outcome.blamed:
            self.rejected.add([blamed.edit], blamed.delta, step)
        self.rejected.add(outcome.unchecked, delta, step)
        record["rejected_edits"] = [c.edit.to_json() for c in outcome.blamed] + [
            e.to_json() for e in outcome.unchecked
        ]

    def _close_epoch(self, epoch: int) -> None:
        cfg = self.config
        if cfg.slow_update:
            self._slow_update(epoch)
        if cfg.meta_skill:
            notes = meta_update(
                self.roles.optimizer,
                self.state.meta_notes,
                self.state.accepted,
                self.rejected.for_prompt(30),
            )
            self.state.meta_notes = notes
            atomic_write_text(self.run.meta(epoch) / "meta_skill.md", notes + "\n")
        self.state.epochs_closed = epoch + 1
        self.state.epoch_start_skill = self.state.current_skill
        self._save()

    def _slow_update(self, epoch: int) -> None:
        items = self.env.items("train")[: max(self.config.batch_size, 1)]
        update = slow_update(
            self.roles.optimizer,
            self.evaluator,
            self.state.epoch_start_skill,
            self.state.current_skill,
            items,
            epoch,
        )
        log: dict[str, Any] = {
            "epoch": epoch,
            "guidance": update.guidance,
            "improved": list(update.improved),
            "regressed": list(update.regressed),
            "persistent": list(update.persistent),
            "mode": "gated" if self.config.slow_update_gated else "force-accept",
        }
        log["accepted"] = False
        if update.candidate is not None and update.candidate != self.state.current_skill:
            too_big = over_budget(self.state.current_skill, update.candidate, self.config.gate)
            if too_big:  # forced or gated, the budget holds (the gate would say the same)
                log["reason"] = too_big
            elif self.config.slow_update_gated:
                decision, _ = self._gate(update.candidate)
                log["decision"] = asdict(decision)
                log["accepted"] = decision.accepted
            else:
                log["accepted"] = True
            if log["accepted"]:
                log["skill_version"] = self._accept(update.candidate)
        atomic_write_json(self.run.slow_update(epoch) / "slow_update.json", log)
        if update.candidate is not None:
            atomic_write_text(self.run.slow_update(epoch) / "candidate.md", update.candidate)
