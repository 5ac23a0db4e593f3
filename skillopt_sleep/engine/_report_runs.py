"""What the night's target runs did, as report records (pure): the edits put to the gate, the
files that would change, and the held-out score before and after.

A private part of :mod:`skillopt_sleep.engine.reporting`, which assembles the night's report
from these; ``held_out`` is importable from there too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.engine.records import EditView, HeldOut, SkillChange

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import TargetRun


def edit_views(runs: Sequence[TargetRun]) -> tuple[EditView, ...]:
    """Every edit the gate saw, per run: its accepted ones, then its rejected ones (a rejected
    edit is "harmful" when, tried alone, it made the score worse)."""
    views: list[EditView] = []
    for run in runs:
        skill = str(run.path)
        for edit in run.result.accepted:
            views.append(_edit_view(skill, edit, accepted=True))
        for entry in run.result.rejected:
            edit = {**entry["edit"], "step": entry.get("step", 0), "delta": entry.get("delta", 0.0)}
            view = _edit_view(skill, edit, accepted=False)
            harmful = bool(entry.get("alone")) and view.delta < 0
            views.append(replace(view, harmful=harmful, refused=_refusal(view.rationale)))
    return tuple(views)


def _refusal(rationale: str) -> str:
    """The edit screen's findings when ``rationale`` is that of an edit it refused, else ""."""
    from skillopt_core.skill.screen import REFUSED_PREFIX

    if not rationale.startswith(REFUSED_PREFIX):
        return ""
    return rationale[len(REFUSED_PREFIX) :].split(". Optimizer's rationale: ", 1)[0]


def _edit_view(skill: str, edit: Mapping[str, Any], *, accepted: bool) -> EditView:
    return EditView(
        skill=skill,
        op=str(edit.get("op", "")),
        anchor=str(edit.get("anchor", "")),
        content=str(edit.get("content", "")),
        rationale=str(edit.get("rationale", "")),
        step=int(edit.get("step", 0)),
        accepted=accepted,
        delta=round(float(edit.get("delta", 0.0)), 4),
    )


def held_out(runs: Sequence[TargetRun]) -> HeldOut | None:
    """The held-out tasks' mean score before and after, paired per task across every run, with
    a paired bootstrap interval and its verdict; None when no run had held-out tasks."""
    before: list[float] = []
    after: list[float] = []
    for run in runs:
        b, a = run.result.test_before, run.result.test_after
        if b is None or a is None:
            continue
        for item, score in sorted(b.per_item_hard.items()):
            before.append(score)
            after.append(a.per_item_hard.get(item, 0.0))
    if not before:
        return None
    from skillopt_sleep.stage.stats import paired_bootstrap, verdict

    _, lo, hi = paired_bootstrap(before, after)
    return HeldOut(
        before=round(sum(before) / len(before), 4),
        after=round(sum(after) / len(after), 4),
        n=len(before),
        ci_low=round(lo, 4),
        ci_high=round(hi, 4),
        verdict=verdict(len(before), lo, hi),
    )


def _link_target(path: Path) -> str:
    real = os.path.realpath(path)
    return real if real != str(path) else ""


def skill_changes(runs: Sequence[TargetRun]) -> tuple[SkillChange, ...]:
    """The files tonight would change: a run whose proposal differs from the live file (a file
    that does not exist yet only when an edit was accepted). ``staged_file`` is set on staging."""
    out = []
    for run in runs:
        result = run.result
        proposed = result.proposed_text.encode("utf-8")
        if run.live is not None and proposed == run.live:
            continue
        if run.live is None and not result.accepted:
            continue  # never create a managed skill that learned nothing
        if not result.accepted and result.proposed_text == result.base_text:
            continue
        out.append(
            SkillChange(
                path=str(run.path),
                kind="memory" if run.kind == "memory" else "skill",
                created=run.live is None,
                live_sha256=hashlib.sha256(run.live).hexdigest() if run.live is not None else "",
                proposed_sha256=hashlib.sha256(proposed).hexdigest(),
                staged_file="",  # set when the proposal is staged
                accepted_edits=len(result.accepted),
                val_before=round(result.val_before.hard, 4),
                val_after=round(result.val_after.hard, 4),
                val_tasks=result.val_before.n,
                gate_split=result.gate_split,
                steps=tuple(result.history),
                target=_link_target(run.path),
            )
        )
    return tuple(out)
