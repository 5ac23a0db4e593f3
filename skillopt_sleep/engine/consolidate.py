"""Consolidate: one night is one training epoch of ``skillopt_core`` on one target file.

The trainer sees the target's training view (the user's text protected, the learned region
editable), rolls out tonight's tasks, reflects, clips to tonight's learning rate, applies and gates
on the validation tasks. What carries across nights — the rejected-edit buffer and the optimizer's
meta notes — is seeded into a fresh run and read back after it, so nights behave as epochs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from skillopt_core.backends import BudgetExceeded
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import TrainConfig, validate
from skillopt_core.errors import NoEvidenceError
from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.optim.gate import GatePolicy
from skillopt_core.optim.schedule import LRSchedule
from skillopt_core.optim.trainer import StepCallback, Trainer, TrainResult
from skillopt_core.records import EvalResult
from skillopt_core.rundir import RunDir
from skillopt_sleep.engine.config import SleepConfig
from skillopt_sleep.engine.select import Selection, without_families
from skillopt_sleep.replay import NightEnvironment
from skillopt_sleep.skills import body_from_view, training_view, with_learned

LR_HORIZON_NIGHTS = 14
"""Nights over which the textual learning rate decays from its max to its floor (cosine)."""

MAX_REJECTED = 500
"""The engine's own rejected edits one file carries across nights (the newest; see
:func:`compact_rejected`). The user's refusals (``reject``, ``rollback``) are all kept."""


@dataclass(frozen=True)
class Carry:
    """What one target file carries from night to night."""

    rejected: tuple[Mapping[str, Any], ...] = ()
    meta_notes: str = ""
    nights: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "rejected": list(self.rejected),
            "meta_notes": self.meta_notes,
            "nights": self.nights,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Carry:
        data = data or {}
        return cls(
            tuple(data.get("rejected", ())),
            str(data.get("meta_notes", "")),
            int(data.get("nights", 0)),
        )


@dataclass(frozen=True)
class Consolidation:
    base_text: str  # the live text (or the new managed skill) the night started from
    proposed_text: str
    accepted: tuple[Mapping[str, Any], ...]
    rejected: tuple[Mapping[str, Any], ...]  # tonight's rejections only
    history: tuple[Mapping[str, Any], ...]
    val_before: EvalResult
    val_after: EvalResult
    test_before: EvalResult | None
    test_after: EvalResult | None
    gate_split: Literal["val", "train"]
    carry: Carry
    full: str = ""  # why nothing was learned when the size budget refused it all ("": not so)
    stale: str = ""  # why nothing was learned when every edit proposed was refused before


def tonight_lr(config: SleepConfig, nights_closed: int) -> int:
    schedule = LRSchedule("cosine", config.train.lr_max, config.train.lr_min)
    return schedule.budget(min(nights_closed, LR_HORIZON_NIGHTS - 1), LR_HORIZON_NIGHTS)


def train_config(config: SleepConfig, selection: Selection, lr: int) -> TrainConfig:
    return validate(
        TrainConfig(
            env="night",
            epochs=1,
            batch_size=max(1, len(selection.train)),
            minibatch_size=config.train.minibatch_size,
            eval_samples=config.night.samples,
            workers=config.train.workers,
            seed=config.night.seed,
            lr=LRSchedule("constant", lr, lr),
            gate=GatePolicy(
                metric=config.train.gate_metric, max_chars=config.train.max_learned_chars
            ),
            slow_update=config.train.slow_update,
            meta_skill=config.train.meta,
            gated=config.train.gate,
            credit=config.train.credit,
        )
    )


def consolidate(
    base_text: str,
    selection: Selection,
    roles: Roles,
    config: SleepConfig,
    run_dir: Path,
    carry: Carry,
    *,
    judge: Any = None,
    on_step: StepCallback | None = None,
) -> Consolidation:
    if not config.mine.families:
        selection = without_families(selection)
    if not config.train.buffer:
        carry = replace(carry, rejected=())
    view = training_view(base_text)
    env = NightEnvironment(
        {"train": selection.train, "val": selection.val, "test": selection.test}, judge
    )
    lr = tonight_lr(config, carry.nights)
    trainer = Trainer(
        train_config(config, selection, lr), env, roles, RunDir(run_dir), view, on_step=on_step
    )
    if trainer.state.next_step == 0 and not trainer.history:  # a fresh night, not a resumed one
        trainer.rejected = RejectedBuffer.from_json(carry.rejected)
        trainer.state.meta_notes = carry.meta_notes
    known = len(carry.rejected)
    result = trainer.fit()
    _guard_evidence(env, result, roles)
    best = result.best_skill
    evaluate = trainer.evaluator.evaluate
    has_test = bool(env.items("test"))
    rejected_now = trainer.rejected.to_json()
    val_before, val_after = evaluate(view, "val"), evaluate(best, "val")
    test_before = evaluate(view, "test") if has_test else None
    test_after = evaluate(best, "test") if has_test else None
    _guard_unchanged(env)
    return Consolidation(
        base_text=base_text,
        proposed_text=with_learned(base_text, body_from_view(best)) if best != view else base_text,
        accepted=tuple(result.accepted),
        rejected=tuple(rejected_now[known:]),
        history=tuple(result.history),
        val_before=val_before,
        val_after=val_after,
        test_before=test_before,
        test_after=test_after,
        gate_split=selection.gate_split,
        carry=replace(
            carry,
            rejected=compact_rejected(rejected_now) if config.train.buffer else (),
            meta_notes=trainer.state.meta_notes,
            nights=carry.nights + 1,
        ),
        full="" if result.accepted else _size_refusal(result.history, view, config),
        stale="" if result.accepted else _refused_before(result.history, rejected_now),
    )


def compact_rejected(
    entries: Sequence[Mapping[str, Any]], limit: int = MAX_REJECTED
) -> tuple[Mapping[str, Any], ...]:
    """The rejected-edit buffer (as run state holds it) to carry to the next night: see
    :meth:`~skillopt_core.optim.buffer.RejectedBuffer.compacted`."""
    return tuple(RejectedBuffer.from_json(entries).compacted(limit).to_json())


def _size_refusal(history: Sequence[Mapping[str, Any]], view: str, config: SleepConfig) -> str:
    """Why the night learned nothing when a step's edits were applied and then refused unweighed
    (the size budget, :func:`skillopt_core.optim.gate.over_budget`: no gate score, nothing
    blamed), or "". Once the learned text reaches ``train.max_learned_chars`` every night ends so
    for as long as the optimizer only adds: said, it was "the optimizer proposed no edit" night
    after night, while the optimizer proposed edits and the calls were spent."""
    from skillopt_core.optim.gate import learned_chars

    refused = any(
        r.get("applied") and "val_candidate" not in r and r.get("decision") != "no edit applied"
        for r in history
    )
    if not refused:
        return ""
    return (
        f"its learned text is at its size budget ({learned_chars(view)} of "
        f"train.max_learned_chars = {config.train.max_learned_chars} characters): tonight's "
        "edits would have grown it past that and were refused unweighed; delete or shorten lines "
        "of its learned block, or raise train.max_learned_chars"
    )


def _refused_before(
    history: Sequence[Mapping[str, Any]], rejected: Sequence[Mapping[str, Any]]
) -> str:
    """Why the night learned nothing when what the optimizer came up with was refused before
    (by the user or the gate: the rejected-edit buffer blocks it), or "": every edit it proposed
    was such an edit, or it proposed none for tasks that failed while the buffer blocks some.
    Said plainly, it was "the optimizer proposed no edit", and a project whose every idea had
    been refused looked like one with nothing left to learn, with no pointer to the way out."""
    proposed = sum(int(r.get("proposed", 0)) for r in history)
    before = sum(int(r.get("refused_before", 0)) for r in history)
    way_out = (
        "`skillopt-sleep refused` lists them, and `skillopt-sleep refused forget ID` lets a "
        "night propose one again"
    )
    if proposed:
        if before < proposed:
            return ""
        return f"every edit the optimizer proposed ({proposed}) was refused before: {way_out}"
    failed = any(int(r.get("failures", 0)) for r in history)
    blocked = len(RejectedBuffer.from_json(rejected).blocked_keys())
    if not blocked or not failed:  # a skill every task passes has nothing to learn
        return ""
    edits = f"{blocked} edits it came up with before are"
    if blocked == 1:
        edits = "1 edit it came up with before is"
    return f"the optimizer proposed no edit, and {edits} refused (by you or the gate): {way_out}"


def _guard_evidence(env: NightEnvironment, result: TrainResult, roles: Roles) -> None:
    """A night that learned nothing because nothing usable came back must say so, loudly."""
    reason = env.unusable_reason()
    if reason:
        raise NoEvidenceError(
            f"every replay on the target {roles.target.name}:{roles.target.model or 'default'} "
            f"came back as {reason}; no edit can be judged",
            hint="check the target backend's login and model (skillopt-sleep doctor), then run again",
        )
    judge = env.judge_unusable_reason()
    if judge:
        raise NoEvidenceError(
            f"{judge}; no rubric task can be judged",
            hint="check the judge backend's login and model (skillopt-sleep doctor): it must "
            "answer with the JSON verdict it is asked for; then run again",
        )
    if result.stop_error is not None:
        raise result.stop_error


def _guard_unchanged(env: NightEnvironment) -> None:
    """A backend that stopped answering usably part-way through the night stops it: the gate's
    verdicts (rejections too, which would block good edits on later nights) and the held-out
    scores were computed on non-answers, so nothing of tonight may be staged or carried."""
    try:
        changed = env.changed_reason()
    except BudgetExceeded:  # the budget is spent: the night's own calls decide, unchecked
        return
    if changed:
        raise NoEvidenceError(
            f"a backend stopped answering usably part-way through the night: {changed}; "
            "nothing was staged and no edit was rejected",
            hint="check that backend (its quota, login and model: skillopt-sleep doctor), then "
            "run again: the next night reads tonight's sessions again",
        )
