"""Stage a night's report with its proposal: the changed files, the diff and the report files.

A private part of :mod:`skillopt_sleep.engine.reporting`; ``stage_report`` is imported (and
patched by tests) from there. The writers themselves are :mod:`skillopt_sleep.stage.report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.state import ProjectState

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import TargetRun


def stage_report(
    state: ProjectState, report: NightReport, runs: Sequence[TargetRun]
) -> NightReport:
    """Stage ``report``'s changed files with ``report.md``, ``report.html``, ``families.md`` and
    ``report.json``; the report as staged (its proposal, folder and staged file names)."""
    from skillopt_sleep.jsonable import dumps
    from skillopt_sleep.stage.proposal import FileChange, stage, staged_name, unified_diff
    from skillopt_sleep.stage.report import render_families, render_html, render_markdown

    changed = {c.path for c in report.changes}
    files = [
        FileChange(
            r.path, r.kind, r.live, r.result.proposed_text, accepted_edits=len(r.result.accepted)
        )
        for r in runs
        if str(r.path) in changed
    ]
    directory = state.proposal_dir(report.night_id)
    names = {str(f.live_path): staged_name(i, f) for i, f in enumerate(files)}
    staged = replace(
        report,
        proposal=report.night_id,
        proposal_dir=str(directory),
        changes=tuple(replace(c, staged_file=names[c.path]) for c in report.changes),
    )
    diff = unified_diff(files)
    # report.md and report.html are cut to size; families.md, report.json and diff.patch are whole
    reports = {
        "report.md": render_markdown(staged, diff),
        "report.html": render_html(staged, diff),
        "families.md": render_families(staged),
        "report.json": dumps(staged, indent=2, ascii_only=True) + "\n",
    }
    stage(state, report.night_id, files, reports, created_at=report.finished_at)
    return staged
