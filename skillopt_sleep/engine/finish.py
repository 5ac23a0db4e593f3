"""A night's end, written in an order that makes a killed night safe to re-run, and the repair
of one that was killed.

The harvest index is committed after the night's report, so an interrupted night re-reads its
sessions (the miner's archive de-duplicates them). The history line is appended only after the
commit, so a night whose commit failed is not in the history twice; one lost between the two is
added by the next night from the copy in the night's folder (:func:`restore_history`). A
proposal staged by a night killed before its commit is removed by the next one
(:func:`discard_unfinished`), which replays its sessions.

The history keeps the last ``HISTORY_KEEP`` nights (:func:`trim_history`, after the line is
appended): `status` shows the last 10, a report's chart the last 30, ``report <id>`` finds a
night of the last year, and restoring a lost line needs only the newest. The line of the
earliest night is kept too: a night's harvest window starts ``night.since`` before it
(``gather.nights_began``). The file is rewritten only once it holds ``HISTORY_SLACK`` lines
more, atomically (a temp file synced, then renamed: a kill leaves the old or the new file), and
never when a line cannot be read: the readers say so and how to repair it, as they did.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from skillopt_core.errors import SkillOptError
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import summary_line
from skillopt_sleep.engine.state import (
    ProjectState,
    append_line,
    read_json,
    read_lines,
    write_json,
    write_private,
)

HISTORY_LINE = "history-line.json"  # a night's history line, kept until it is in history.jsonl
HISTORY_KEEP = 365  # nights kept in history.jsonl: a year (about 300 bytes a night)
HISTORY_SLACK = 30  # lines over HISTORY_KEEP before it is rewritten: once a month, not nightly


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
    with contextlib.suppress(SkillOptError, OSError):  # tidying up never fails a night
        trim_history(state)
    return report


def trim_history(state: ProjectState) -> int:
    """Keep the last ``HISTORY_KEEP`` lines of the history and its earliest night's (see the
    module doc); returns how many lines were dropped. Call it holding the night lock."""
    path = state.history_path
    data = path.read_bytes() if path.is_file() else b""
    if data.count(b"\n") <= HISTORY_KEEP + HISTORY_SLACK or not data.endswith(b"\n"):
        return 0  # little to drop, or a torn last line: the next append cuts it first
    try:
        records = read_lines(path)
    except SkillOptError:  # a damaged line: never dropped unseen
        return 0
    lines = [line for line in data.splitlines(keepends=True) if line.strip()]
    if len(lines) != len(records) or len(lines) <= HISTORY_KEEP + HISTORY_SLACK:
        return 0  # the file changed under us, or blank lines counted: nothing to do
    kept = set(range(len(lines) - HISTORY_KEEP, len(lines)))
    earliest = _earliest(records)
    if earliest is not None:
        kept.add(earliest)
    write_private(path, b"".join(lines[i] for i in sorted(kept)))
    return len(lines) - len(kept)


def _earliest(records: Sequence[Mapping[str, Any]]) -> int | None:
    """The line of the earliest night start, read as ``gather.nights_began`` reads them."""
    found: tuple[datetime, int] | None = None
    for number, record in enumerate(records):
        try:
            started = datetime.fromisoformat(str(record.get("started_at")))
        except ValueError:
            continue
        if started.tzinfo is not None and (found is None or started < found[0]):
            found = (started, number)
    return found[1] if found else None


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
