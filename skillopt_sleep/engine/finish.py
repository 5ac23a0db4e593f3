"""A night's end, written in an order that makes a killed night safe to re-run, and the repair
of one that was killed.

The harvest index is committed after the night's report, so an interrupted night re-reads its
sessions (the miner's archive de-duplicates them). The history line is appended only after the
commit, so a night whose commit failed is not in the history twice; one lost between the two is
added by the next night from the copy in the night's folder (:func:`restore_history`). A
proposal staged by a night killed before its commit is removed by the next one
(:func:`discard_unfinished`), which replays its sessions.
"""

from __future__ import annotations

from typing import Any

from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import summary_line
from skillopt_sleep.engine.state import (
    ProjectState,
    append_line,
    read_json,
    read_lines,
    write_json,
)

HISTORY_LINE = "history-line.json"  # a night's history line, kept until it is in history.jsonl


def discard_unfinished(state: ProjectState, index: Any) -> list[str]:
    """Remove the pending proposals of nights killed after staging but before their commit.

    Their sessions were never consumed, so tonight replays them and stages anew: keeping the
    old one would offer the same edits twice. A night is finished when its commit recorded it;
    proposals older than the first such record predate it and are kept."""
    import shutil

    from skillopt_sleep.stage.proposal import readable_manifest

    finished = index.finished_nights()
    if not finished:
        return []
    oldest, removed = min(finished), []
    for directory in state.proposals():
        night = directory.name
        if night in finished or night <= oldest:
            continue
        manifest = readable_manifest(directory)  # a damaged one is left alone: nothing is lost
        if manifest is not None and manifest.get("state", "pending") == "pending":
            shutil.rmtree(directory)
            removed.append(night)
    return removed


def restore_history(state: ProjectState, index: Any) -> list[str]:
    """Append the history line of each finished night that has none: one killed (or failing)
    between its commit and its line, which the history would otherwise miss (or, with the
    line written first, count twice: its sessions read again by the next night). The line was
    kept in the night's folder before the commit; returns the nights restored."""
    from skillopt_core.errors import StorageError

    recorded = {str(r.get("night_id", "")) for r in read_lines(state.history_path)}
    newest, restored = max(recorded, default=""), []
    for night in sorted(index.finished_nights()):
        if night in recorded or night <= newest:
            continue
        try:
            line = read_json(state.night_dir(night) / HISTORY_LINE)
        except StorageError:  # damaged: the history goes without that night, as before
            continue
        if line is not None:
            append_line(state.history_path, line)
            restored.append(night)
    return restored


def save_night(
    state: ProjectState, report: NightReport, index: Any, *, dry_run: bool, keep: int
) -> NightReport:
    """Save the night's report and history line, then commit the harvest index (last), and
    keep the newest ``keep`` finished nights' folders. A dry run commits nothing."""
    from skillopt_sleep.jsonable import to_jsonable

    if dry_run:
        index.rollback()
        return report
    folder = state.night_dir(report.night_id)
    line = summary_line(report)
    write_json(folder / HISTORY_LINE, line)
    write_json(folder / "report.json", to_jsonable(report))
    index.commit(night=report.night_id)  # finished: its sessions are consumed
    _append_history(state, report, line)
    state.prune_nights(keep)
    return report


def _append_history(state: ProjectState, report: NightReport, line: dict[str, Any]) -> None:
    """The finished night's history line; one that cannot be written is added by the next
    night (:func:`restore_history`), so the error says the night itself is done."""
    from skillopt_core.errors import StorageError

    try:
        append_line(state.history_path, line)
    except StorageError as exc:
        staged = f" and staged proposal {report.proposal}" if report.proposal else ""
        raise StorageError(
            f"{exc.message}; the night {report.night_id} finished{staged} (its sessions "
            "are consumed), and the next night adds its line to the history",
            hint=exc.hint,
        ) from None
