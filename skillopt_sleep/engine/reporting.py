"""Turn what a night did into its :class:`NightReport` (pure), and stage it with its files.

The public face of the night's report: what the runs did as records is in :mod:`._report_runs`,
staging the report with its proposal in :mod:`._report_staging`; their public names
(``held_out``, ``stage_report``) are importable from here, where the night calls them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_core.backends.budget import Totals
from skillopt_core.backends.runtime import Roles
from skillopt_core.errors import SkillOptError
from skillopt_sleep.engine._report_runs import edit_views, held_out, skill_changes
from skillopt_sleep.engine._report_staging import stage_report
from skillopt_sleep.engine.records import FamilyView, NightReport, Usage
from skillopt_sleep.engine.state import ProjectState, read_lines

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import TargetRun

__all__ = [
    "Basics",
    "base_text",
    "family_views",
    "full_night",
    "held_out",
    "history",
    "mark_adopted",
    "new_file_text",
    "nothing_to_replay",
    "quiet_night",
    "stage_report",
    "stopped_night",
    "summary_line",
    "with_notes",
    "withheld_notes",
]


@dataclass(frozen=True)
class Basics:
    night_id: str
    project: str
    started_at: str
    finished_at: str  # on the clock of ``started_at``, which a demo or a test may set
    dry_run: bool
    sessions: int
    requests: int
    embedder: str
    backends: Mapping[str, str] = field(default_factory=dict)


def family_views(mined: Any, routes: Mapping[str, Any] | None = None) -> tuple[FamilyView, ...]:
    views = []
    for family in sorted(mined.families, key=lambda f: (-f.size, f.id)):
        target = routes.get(family.id) if routes else None
        views.append(
            FamilyView(
                id=family.id,
                size=family.size,
                examples=tuple(family.requests[:3]),
                judged_by=family.judged_by,
                checks=tuple(f"{c.kind}: {c.value}" for c in family.checks),
                skill=str(target.path) if target is not None else "",
                new_tonight=family.new_tonight,
                outcomes=dict(family.outcomes),
            )
        )
    return tuple(views)


def history(state: ProjectState, limit: int = 30) -> tuple[Mapping[str, Any], ...]:
    return tuple(read_lines(state.history_path)[-limit:])


def _report(
    base: Basics,
    mined: Any,
    timings: Mapping[str, float],
    history: tuple[Mapping[str, Any], ...],
    **fields: Any,
) -> NightReport:
    """A NightReport with the parts every night shares filled in from ``base`` and ``mined``;
    the message ends with what mining withheld."""
    fields["message"] = "; ".join([fields["message"], *withheld_notes(mined)])
    shared: dict[str, Any] = {
        "night_id": base.night_id,
        "project": base.project,
        "started_at": base.started_at,
        "finished_at": base.finished_at,
        "dry_run": base.dry_run,
        "sessions": base.sessions,
        "requests": base.requests,
        "tasks": len(mined.tasks) if mined is not None else 0,
        "families": family_views(mined) if mined is not None else (),
        "changes": (),
        "edits": (),
        "held_out": None,
        "usage": Usage(),
        "stage_seconds": {k: round(v, 4) for k, v in timings.items()},
        "embedder": base.embedder,
        "backends": dict(base.backends),
        "history": history,
    }
    return NightReport(**{**shared, **fields})


def withheld_notes(mined: Any) -> list[str]:
    """Families mining withheld because their members' corrections contradict each other (see
    :mod:`skillopt_sleep.mine.coherence`): never trained, so the night says so."""
    count = int(mined.stats.get("withheld_contradictory", 0)) if mined is not None else 0
    if not count:
        return []
    if count == 1:
        return ["1 family withheld: its corrections contradict each other"]
    return [f"{count} families withheld: their corrections contradict each other"]


def nothing_to_replay(mined: Any, *, has_judge: bool) -> str:
    """Why a night with sessions selected no task: families that cannot be judged yet, or none."""
    from skillopt_sleep.replay import judgeable

    families = len(mined.families)
    if not families or any(judgeable(t, has_judge) for t in mined.tasks):
        return "no recurring task could be replayed yet"
    found = (
        "1 family found, but it has no judge yet"
        if families == 1
        else f"{families} families found, but none has a judge yet"
    )
    rubrics = not has_judge and any(t.rubric for t in mined.tasks)
    rubric = "; a judge backend (--judge) could judge by rubric" if rubrics else ""
    return f"{found} (no corrections or checks to judge by{rubric})"


def with_notes(report: NightReport, notes: Sequence[str]) -> NightReport:
    return replace(report, message="; ".join([report.message, *notes])) if notes else report


def quiet_night(
    base: Basics,
    mined: Any,
    outcome: Any,
    message: str,
    timings: Mapping[str, float],
    *,
    history: tuple[Mapping[str, Any], ...] = (),
) -> NightReport:
    return _report(base, mined, timings, history, outcome=outcome, message=message)


def stopped_night(
    base: Basics,
    mined: Any,
    error: SkillOptError,
    spent: Totals,
    timings: Mapping[str, float],
    *,
    history: tuple[Mapping[str, Any], ...] = (),
) -> NightReport:
    """A night that stopped part-way (a backend that failed, a budget reached, replies that were
    no answers): outcome "stopped", the reason and its fix as the message, and what it spent.
    Such a night stages and carries nothing and does not commit the harvest index, so its report
    and history line are the only trace of it: without them `status` would show the night before
    and its calls would be paid for and never shown."""
    fix = f" (fix: {error.hint})" if error.hint else ""
    message = (
        f"stopped: {error.message}{fix}; nothing was staged and the next night reads these "
        "sessions again"
    )
    usage = Usage(
        calls=spent.calls,
        input_tokens=spent.input_tokens,
        output_tokens=spent.output_tokens,
        cost_usd=round(spent.cost_usd, 6),
    )
    return _report(base, mined, timings, history, outcome="stopped", message=message, usage=usage)


def full_night(
    base: Basics,
    mined: Any,
    routes: Mapping[str, Any],
    runs: Sequence[TargetRun],
    roles: Roles,
    timings: Mapping[str, float],
    *,
    history: tuple[Mapping[str, Any], ...] = (),
) -> NightReport:
    totals = roles.ledger.totals
    changes = skill_changes(runs)
    edits = edit_views(runs)
    accepted = sum(1 for e in edits if e.accepted)
    full = [f"{run.path}: {run.result.full}" for run in runs if run.result.full]
    stale = [f"{run.path}: {run.result.stale}" for run in runs if run.result.stale]
    if changes:
        outcome, message = "staged", f"{accepted} edit(s) passed the gate"
    elif full:  # edits were proposed, and refused unweighed for the learned text's size
        outcome, message = "no change", "no edit fits: " + "; ".join(full)
    elif stale and not edits:  # proposed, but each one refused before: none was new
        outcome, message = "no change", "nothing new to try: " + "; ".join(stale)
    elif runs and not edits:  # not "no edit improved": none was ever put to the gate
        outcome, message = "no change", "the optimizer proposed no edit (it asked for no change)"
    else:
        outcome, message = "no change", "no edit improved the validation score"
    if base.dry_run:
        outcome = "dry run"
        message = f"dry run: {message}; nothing staged"
    return _report(
        base,
        mined,
        timings,
        history,
        outcome=outcome,
        message=message,
        families=family_views(mined, routes),
        changes=changes,
        edits=edits,
        held_out=held_out(runs),
        usage=Usage(
            calls=totals.calls,
            input_tokens=totals.input_tokens,
            output_tokens=totals.output_tokens,
            cost_usd=round(totals.cost_usd, 6),
        ),
    )


def _intents(mined: Any, families: Sequence[str]) -> list[str]:
    return [f.representative for f in mined.families if f.id in families]


def new_file_text(target: Any, mined: Any, families: Sequence[str]) -> str:
    """The starting text of a file that does not exist yet (the managed skill, a memory file)."""
    from skillopt_sleep.skills import managed_skill_text

    if target.kind == "memory":
        return "# Project notes\n"
    return managed_skill_text(_intents(mined, families))


def base_text(
    target: Any, live: bytes | None, mined: Any, families: Sequence[str], managed: Path
) -> str:
    """The text a night trains ``target`` from: the live file, or :func:`new_file_text`. The
    managed skill (the file at ``managed``, by any path) names tonight's ``families`` in its
    description, so the gate validates, and ``adopt`` writes, the text with its description
    brought up to date: a harness loads a skill by its description. The description changes
    no replay (a replay is shown the body), and a night that learns nothing stages nothing."""
    from skillopt_sleep.skills.route import with_new_topics

    if live is None:
        return new_file_text(target, mined, families)
    text = live.decode("utf-8", "replace")
    if target.kind == "memory" or os.path.realpath(target.path) != os.path.realpath(managed):
        return text
    return with_new_topics(text, _intents(mined, families))


def mark_adopted(report: NightReport) -> NightReport:
    return replace(report, outcome="adopted", message=f"{report.message}; adopted (auto_adopt)")


def summary_line(report: NightReport) -> dict[str, Any]:
    held = report.held_out
    return {
        "night_id": report.night_id,
        "started_at": report.started_at,
        "outcome": report.outcome,
        "sessions": report.sessions,
        "tasks": report.tasks,
        "accepted_edits": len(report.accepted),
        "held_out_before": held.before if held else None,
        "held_out_after": held.after if held else None,
        "cost_usd": report.usage.cost_usd,
        "calls": report.usage.calls,
        "proposal": report.proposal,
    }
