"""One training step: roll out a batch with the current skill -> reflect -> screen -> aggregate ->
select (the step's textual learning rate) -> apply -> gate, then credit or prune the bundle, and
the step's record for the history. Every stage leaves its artifact in ``steps/step_NNNN/``.

The screen (:mod:`skillopt_core.skill.screen`) refuses an edit that would write what no learned
procedure needs (a download run as code, secrets sent, a host nobody named, the user overridden,
invisible characters, a forged marker, a secret): it never reaches the gate, which a fooled
grader could pass, and joins the rejected-edit buffer blocked, its findings leading its rationale.
An ``add`` that writes the opposite of a learned line ("Never include a Testing section" beside
"Always include a Testing section", skill/_contradiction.py) becomes a ``replace`` of that line,
which the gate weighs: it weighs only tonight's tasks, and the agent would read both for good.
Any other edit that does so is refused like the screen's, its reason naming the line to replace.

A step changes the loop (a new skill version, the rejected-edit buffer) but does not commit it:
the trainer does. A call budget that runs out while a bundle is credited or pruned stops the step
with that error, uncommitted, so the resumed run redoes it as an uninterrupted run would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from skillopt_core.optim.aggregate import aggregate
from skillopt_core.optim.context import LoopContext
from skillopt_core.optim.credit import assign_credit, prune_bundle
from skillopt_core.optim.gate import over_budget, room_note
from skillopt_core.optim.reflect import ReflectOutcome, make_minibatches, reflect_all
from skillopt_core.optim.select import select_edits
from skillopt_core.optim.slow import requests_of
from skillopt_core.records import Edit, EditOutcome, Item, ScoredRollout
from skillopt_core.rundir import atomic_write_json, atomic_write_text
from skillopt_core.skill import apply_edits
from skillopt_core.skill._contradiction import as_replacement
from skillopt_core.skill.edits import CONTRADICTION_PREFIX
from skillopt_core.skill.screen import (
    REFUSED_PREFIX,
    Finding,
    ScreenContext,
    known_hosts,
    refusal,
    refused_edit,
    split_screened,
)

_REFUSALS = (REFUSED_PREFIX, CONTRADICTION_PREFIX)  # refused unweighed, on the edit's own text


def run_step(
    loop: LoopContext, step: int, epoch: int, batch: Sequence[Item], budget: int
) -> dict[str, Any]:
    """Run step ``step`` on ``batch`` with an edit budget of ``budget``; its history record."""
    cfg = loop.config
    step_dir = loop.run.step(step)
    skill = loop.state.current_skill
    scored = loop.evaluator.run(skill, batch)
    atomic_write_json(step_dir / "rollouts.json", _rollouts_json(scored))
    outcomes = reflect_all(
        loop.roles.optimizer,
        skill,
        make_minibatches(scored, cfg.minibatch_size),
        budget=budget,
        rejected=loop.rejected,
        meta_notes=loop.state.meta_notes if cfg.meta_skill else "",
        step=step,
        workers=cfg.workers,
        room=room_note(skill, cfg.gate),
    )
    blocked = loop.rejected.blocked_keys()
    proposed = [e for o in outcomes for e in o.edits]
    screen = _screen_context(loop, skill)
    # an add refused before stays refused once it would become a replace (a new key)
    converted = ((e, as_replacement(skill, e)) for e in proposed)
    fresh = [c for e, c in converted if e.key() not in blocked and c.key() not in blocked]
    allowed, refused = split_screened(fresh, screen)
    for edit, findings in refused:  # refused alone and unweighed: blocked, no delta to blame
        loop.rejected.add([refused_edit(edit, refusal(findings))], 0.0, step)
    blocked = loop.rejected.blocked_keys()
    merged = aggregate(allowed)
    selected = select_edits(merged, budget, blocked)
    atomic_write_json(
        step_dir / "patches.json", _patches_json(budget, outcomes, merged, selected, refused)
    )
    record: dict[str, Any] = {
        "step": step,
        "epoch": epoch,
        "lr_budget": budget,
        "train_hard": sum(s.score.hard for s in scored) / max(1, len(scored)),
        "failures": sum(1 for s in scored if s.score.hard < 1.0),
        "proposed": len(proposed),
        "refused_before": len(proposed) - len(fresh),  # blocked in the buffer already
        "selected": len(selected),
        "minibatches": len(outcomes),
        "dropped_minibatches": [o.dropped_reason for o in outcomes if o.dropped_reason],
        "accepted": False,
    }
    if refused:
        record["refused_edits"] = [
            {
                **edit.to_json(),
                "reason": refusal(findings),
                "findings": [asdict(f) for f in findings],
            }
            for edit, findings in refused
        ]
    if not selected:
        record["decision"] = "no edits to try"
        return record
    report = apply_edits(skill, selected, screen)
    atomic_write_json(
        step_dir / "apply_report.json",
        [
            {"edit": o.edit.to_json(), "applied": o.applied, "reason": o.reason}
            for o in report.outcomes
        ],
    )
    _remember_refusals(loop, report.outcomes, step, record)
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
    decision, delta = loop.gate(report.text)
    atomic_write_json(step_dir / "gate.json", asdict(decision))
    record.update(
        decision=decision.reason, val_current=decision.current, val_candidate=decision.candidate
    )
    if decision.accepted:
        _take(loop, skill, applied, report.text, delta, step, budget, record)
    elif cfg.credit and len(applied) > 1:
        _credit(loop, skill, applied, delta, step, budget, record)
    else:
        loop.rejected.add(applied, delta, step)
        record["rejected_edits"] = [e.to_json() for e in applied]
    return record


def _remember_refusals(
    loop: LoopContext, outcomes: Sequence[EditOutcome], step: int, record: dict[str, Any]
) -> None:
    """Edits the screen refused once applied (what they wrote completed a line into something
    it refuses), and edits that contradict a learned line they keep: blocked in the buffer like
    those refused before selection, the reason leading the rationale that the next reflection
    reads (for a contradiction, the learned line to ``replace`` instead)."""
    for outcome in outcomes:
        if not outcome.applied and outcome.reason.startswith(_REFUSALS):
            loop.rejected.add([refused_edit(outcome.edit, outcome.reason)], 0.0, step)
            record.setdefault("refused_edits", []).append(
                {**outcome.edit.to_json(), "reason": outcome.reason}
            )


def _screen_context(loop: LoopContext, skill: str) -> ScreenContext:
    """What the edit screen may take as the user's own: hosts named by the current skill or by
    the requests of the training and validation items."""
    items = [*loop.env.items("train"), *loop.env.items("val")]
    return ScreenContext(hosts=known_hosts([skill, *requests_of(items)]))


def _take(
    loop: LoopContext,
    skill: str,
    applied: list[Edit],
    text: str,
    delta: float,
    step: int,
    budget: int,
    record: dict[str, Any],
) -> None:
    """An accepted bundle, pruned of any edit that rides along to its harm (optim/credit.py)."""
    cfg = loop.config
    if cfg.credit and cfg.gated and len(applied) > 1:  # no harmful edit rides along
        pruned = prune_bundle(skill, applied, text, delta, loop.gate, budget)
        if pruned.budget is not None:  # not committed: the resumed run redoes the step
            raise pruned.budget
        applied, text = list(pruned.kept), pruned.skill
        for dropped in pruned.dropped:
            loop.rejected.add([dropped.edit], dropped.delta, step)
        record["pruned_edits"] = [c.edit.to_json() for c in pruned.dropped]
    record["accepted"] = True
    record["skill_version"] = loop.accept(text)
    loop.state.accepted.extend({**e.to_json(), "step": step, "delta": delta} for e in applied)


def _credit(
    loop: LoopContext,
    skill: str,
    applied: list[Edit],
    delta: float,
    step: int,
    limit: int,
    record: dict[str, Any],
) -> None:
    """A rejected bundle: judge its edits alone before blaming them (optim/credit.py)."""
    policy = loop.config.gate
    outcome = assign_credit(
        skill, applied, loop.gate, limit, refuse=lambda text: over_budget(skill, text, policy)
    )
    if outcome.budget is not None:  # not committed: the resumed run redoes the step
        raise outcome.budget
    record["credit"] = outcome.to_json()
    if outcome.skill is not None:
        record["accepted"] = True
        record["skill_version"] = loop.accept(outcome.skill)
        loop.state.accepted.extend(
            {**c.edit.to_json(), "step": step, "delta": c.delta} for c in outcome.accepted
        )
    for blamed in outcome.blamed:
        loop.rejected.add([blamed.edit], blamed.delta, step)
    loop.rejected.add(outcome.unchecked, delta, step)
    record["rejected_edits"] = [c.edit.to_json() for c in outcome.blamed] + [
        e.to_json() for e in outcome.unchecked
    ]


def _rollouts_json(scored: Sequence[ScoredRollout]) -> list[dict[str, Any]]:
    return [
        {
            "item_id": s.item.id,
            "response": s.rollout.response,
            "hard": s.score.hard,
            "soft": s.score.soft,
            "reason": s.score.reason,
        }
        for s in scored
    ]


def _patches_json(
    budget: int,
    outcomes: Sequence[ReflectOutcome],
    merged: list[Edit],
    selected: list[Edit],
    refused: Sequence[tuple[Edit, Sequence[Finding]]] = (),
) -> dict[str, Any]:
    return {
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
        "refused": [
            {**e.to_json(), "findings": [asdict(f) for f in findings]} for e, findings in refused
        ],
        "merged": [e.to_json() for e in merged],
        "selected": [e.to_json() for e in selected],
    }
