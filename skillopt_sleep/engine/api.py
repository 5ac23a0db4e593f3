"""The engine's library API besides ``run_night``: status, proposals, adopt / reject / rollback.

Never prints; raises :mod:`skillopt_core.errors` classes that carry their exit codes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.engine.records import (
    AdoptResult,
    NightSummary,
    Proposal,
    StagedReport,
    Status,
)
from skillopt_sleep.engine.state import ProjectState, read_json, read_lines

PathLike = str | os.PathLike[str]


def _proposal(directory: Path, *, verdict_of: tuple[str, ...] | None = None) -> Proposal:
    """The proposal in ``directory``; its held-out verdict is read from its report (a file that
    grows with the night) only when its state is in ``verdict_of`` (None: any state)."""
    from skillopt_sleep.stage.proposal import readable_manifest

    manifest = readable_manifest(directory)
    if manifest is None:
        return Proposal(directory.name, "damaged", str(directory), "", (), 0)
    state = manifest.get("state", "pending")
    held: dict[str, Any] = {}
    if verdict_of is None or state in verdict_of:
        report = read_json(directory / "report.json", {}) or {}
        held = report.get("held_out") or {}
    return Proposal(
        id=directory.name,
        state=state,
        directory=str(directory),
        created_at=str(manifest.get("created_at", "")),
        files=tuple(f["live_path"] for f in manifest["files"]),
        accepted_edits=sum(int(f.get("accepted_edits", 0)) for f in manifest["files"]),
        verdict=str(held.get("verdict", "")),
    )


def list_proposals(project: PathLike) -> list[Proposal]:
    return [_proposal(d) for d in ProjectState(project).proposals()]


def report_path(project: PathLike, proposal: str | None = None, kind: str = "md") -> Path:
    """The staged report of ``proposal`` (None: the latest proposal; "" is a UsageError)."""
    state = ProjectState(project)
    proposals = state.proposals()
    if proposal is not None:
        directory = state.staged_proposal(proposal)
    elif proposals:
        directory = proposals[-1]
    else:
        raise UsageError("no staged proposal yet", hint="run a night first: `skillopt-sleep run`")
    path = directory / f"report.{kind}"
    if not path.is_file():
        raise UsageError(f"no report.{kind} in {directory}")
    return path


def read_report(project: PathLike, proposal: str | None = None, kind: str = "md") -> StagedReport:
    """The staged report of ``proposal`` (None: the latest proposal) with a first line saying
    which proposal it is and its state now; asked for the latest, that line first says what the
    latest night did when it staged nothing, so last week's adopted proposal is not taken for
    tonight's. JSON gains the keys ``proposal_state``, ``note`` and ``latest_night`` (the file
    is not changed). A damaged report is a StorageError."""
    path = report_path(project, proposal, kind)
    shown = _proposal(path.parent)
    latest, message = (None, "") if proposal is not None else _latest_night(ProjectState(project))
    if latest is not None and latest.proposal == shown.id:
        latest = None  # the latest night staged what is shown
    note = _report_note(shown, latest, message, named=proposal is not None)
    if kind == "json":
        extra: dict[str, Any] = {"proposal_state": shown.state, "note": note}
        if latest is not None:
            keys = ("night_id", "started_at", "outcome")
            extra["latest_night"] = {**{k: getattr(latest, k) for k in keys}, "message": message}
        # ASCII-only: a bidi override or C1 control from a request prints as an escape
        text = json.dumps({**extra, **read_json(path)}, indent=2, ensure_ascii=True)
    else:
        from skillopt_sleep.stage.report import with_note

        try:
            staged = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise StorageError(
                f"{path} is damaged and cannot be read ({exc})",
                hint=f"move {path} aside, or stage the proposal again with `skillopt-sleep run`",
            ) from exc
        text = with_note(staged, kind, note)
    return StagedReport(shown.id, shown.state, note, str(path), kind, text, latest, message)


def _latest_night(state: ProjectState) -> tuple[NightSummary | None, str]:
    """The last night in the history and its message ("" when its report is gone or damaged)."""
    records = read_lines(state.history_path)
    if not records:
        return None, ""
    latest = _summary(records[-1])
    try:
        report = read_json(state.night_dir(latest.night_id) / "report.json", {}) or {}
    except StorageError:
        report = {}
    return latest, str(report.get("message", ""))


def _report_note(shown: Proposal, latest: NightSummary | None, message: str, *, named: bool) -> str:
    which = f"proposal {shown.id}" if named else f"the latest proposal, {shown.id}"
    note = f"Showing {which} (staged {_when(shown.created_at or shown.id)}), which is {shown.state}"
    stale = (
        ": the report below is from when it was staged, so its advice to adopt or reject it "
        "no longer applies."
    )
    note += "." if shown.state == "pending" else stale
    if latest is None:
        return note
    if latest.proposal:
        did = f"staged {latest.proposal}, which is no longer staged"
    else:
        did = "staged nothing: " + (message.rstrip(".") or latest.outcome)
    return f"The latest night ({latest.night_id}, {_when(latest.started_at)}) {did}. {note}"


def _when(moment: str) -> str:
    """An ISO time as "2026-11-23 03:17 UTC" (anything else as it is)."""
    from datetime import datetime, timezone

    try:
        parsed = datetime.fromisoformat(moment)
    except ValueError:
        return moment
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc)
    return parsed.strftime("%Y-%m-%d %H:%M UTC")


def backend_health(config: Any) -> dict[str, str]:
    """``{role: "ok" | what is wrong}`` for each configured backend (a health check each: a
    ping for API backends, a version probe for harness CLIs). No budget is spent on tasks."""
    from skillopt_core.backends import BackendError, create_backend
    from skillopt_core.backends.runtime import role_options

    out: dict[str, str] = {}
    for role in ("optimizer", "target", "judge"):
        spec = getattr(config.backends, role)
        if not spec:
            continue
        try:
            create_backend(spec, role_options(config.backends.options, role)).health_check()
            out[role] = "ok"
        except (BackendError, ValueError) as exc:
            out[role] = str(exc)
    return out


def status(project: PathLike, *, limit: int = 10, check_backends: bool = False) -> Status:
    """What the last nights did, pending proposals, the schedule, the archive. Fast: reads only
    small state files (no model, no torch, no harvest) unless ``check_backends`` asks for a
    health check of each configured backend; a schedule whose engine is another interpreter
    than this one starts it once to ask whether it still imports us (at most 10 s)."""
    from skillopt_sleep.engine.config import load_config
    from skillopt_sleep.stage.proposal import damaged_note

    state = ProjectState(project)
    nights = tuple(_summary(r) for r in read_lines(state.history_path)[-limit:])
    staged = [_proposal(d, verdict_of=("pending",)) for d in state.proposals()]
    pending = tuple(p for p in staged if p.state == "pending")
    damaged = tuple(damaged_note(Path(p.directory)) for p in staged if p.state == "damaged")
    config = load_config(state.project)
    running = state.running()
    archive, problem = _archive_counts(state)
    return Status(
        project=str(state.project),
        state_dir=str(state.root),
        nights=nights,
        pending=pending,
        schedule=_schedule(state),
        backends={
            "optimizer": config.backends.optimizer,
            "target": config.backends.target,
            "judge": config.backends.judge,
        },
        archive=archive,
        running={"pid": running} if running else None,
        health=backend_health(config) if check_backends else {},
        ended_since_last_night=_ended_sessions(state, nights[-1].started_at if nights else ""),
        interrupted=tuple(interrupted(state.project)),
        warnings=((problem,) if problem else ()) + damaged,
    )


def _summary(record: dict[str, Any]) -> NightSummary:
    """One history line as a record (lines of older versions may lack fields)."""
    return NightSummary(
        night_id=str(record.get("night_id", "")),
        started_at=str(record.get("started_at", "")),
        outcome=str(record.get("outcome", "")),
        sessions=int(record.get("sessions", 0)),
        tasks=int(record.get("tasks", 0)),
        accepted_edits=int(record.get("accepted_edits", 0)),
        held_out_before=record.get("held_out_before"),
        held_out_after=record.get("held_out_after"),
        cost_usd=float(record.get("cost_usd", 0.0)),
        proposal=str(record.get("proposal", "")),
    )


def _ended_sessions(state: ProjectState, since: str) -> int:
    """Sessions of this project that the SessionEnd hook recorded after the last night began."""
    root = str(state.project)
    count = 0
    for log in _session_end_logs(since):
        for record in read_lines(log, skip_bad=True):
            cwd = str(record.get("cwd", ""))
            inside = cwd == root or cwd.startswith(root.rstrip("/\\") + os.sep)
            if inside and str(record.get("at", "")) > since:
                count += 1
    return count


SESSION_END_LOG = "session-end.jsonl"  # plugins/claude-code/hooks/session_end.py writes it
SESSION_END_SEGMENTS = "session-end.*.jsonl"  # its rotated logs, named by time (oldest first)
CLOCK_SLACK_S = 300.0  # a line's time and its file's mtime come from two clock reads


def _session_end_logs(since: str) -> list[Path]:
    """The hook's log and those of its rotated segments last written after ``since`` (an ISO
    time; "" for all): an older segment holds no later line, so it is not read at all."""
    from datetime import datetime

    from skillopt_sleep.paths import state_dir

    folder = state_dir()
    try:
        cutoff = datetime.fromisoformat(since).timestamp() - CLOCK_SLACK_S if since else None
    except ValueError:
        cutoff = None
    logs = []
    for segment in sorted(folder.glob(SESSION_END_SEGMENTS)):
        try:
            recent = cutoff is None or segment.stat().st_mtime >= cutoff
        except OSError:  # deleted by a rotating hook meanwhile
            continue
        if recent and segment.name != SESSION_END_LOG:
            logs.append(segment)
    return [*logs, folder / SESSION_END_LOG]


def _schedule(state: ProjectState) -> dict[str, Any]:
    from skillopt_sleep.schedule import schedule_info

    info: dict[str, Any] = schedule_info(state.project)
    return info


def _archive_counts(state: ProjectState) -> tuple[dict[str, int], str]:
    """Rows per table of the mining archive, and why it could not be read ("" when it could or
    there is none yet); busy (a night is writing it) is no problem."""
    if not state.archive_path.is_file():
        return {}, ""
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{state.archive_path}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            counts = {
                t: int(db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in tables
            }
            return counts, ""
        finally:
            db.close()
    except sqlite3.Error as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return {}, ""
        return {}, (
            f"the mining archive {state.archive_path} is damaged ({exc}): move it aside and the "
            "next night starts a fresh one (the requests of earlier nights are then forgotten)"
        )


def adopt(
    project: PathLike,
    proposal: str | None = None,
    *,
    force: bool = False,
    home: Path | None = None,
) -> AdoptResult:
    """Replace the live files with the proposal; the message first says what recovering an
    interrupted transaction did, if anything. ``home`` (default: the user's) holds the user
    skill roots, as for ``run_night``: a file a link leads to outside the project and them is
    refused unless ``force``."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep adopt"):
        recovered = transaction.recover(state)
        name, files, backup = transaction.adopt(state, proposal, force=force, home=home)
    message = "; ".join([*(r.message for r in recovered), "live files replaced; backup kept"])
    return AdoptResult(name, "adopted", tuple(files), str(backup), message)


def rollback(project: PathLike, proposal: str | None = None, *, force: bool = False) -> AdoptResult:
    """Restore what the latest (or the named) adopt replaced. An interrupted adopt of it is
    undone by the recovery alone: that is the rollback, and its message says so; so is a
    rollback the recovery finished (one killed, or whose edits were not refused yet). A live
    file changed since the adopt is refused (DriftError) unless ``force``, which keeps it first.
    Like ``reject``, the proposal's edits go to the rejected-edit buffer: the next night
    proposed them again, word for word."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep rollback"):
        recovered = transaction.recover(state, give_up=proposal)
        closed = [r for r in recovered if r.damaged and r.proposal == proposal]
        if closed:  # the user checked the files an unfinishable adopt or rollback left
            last = closed[-1]
            note = (
                f"closed the interrupted {last.action} of {last.proposal}, whose proposal is damaged "
                f"({last.damaged}): the live files stay as they are now"
            )
            return AdoptResult(last.proposal, "rolled back", (), "", note)
        undone = [
            r
            for r in recovered
            if proposal in (None, r.proposal)
            and not r.damaged
            and (r.action == "rollback" or not r.repaired)
        ]
        if undone:
            last = undone[-1]
            transaction.refuse_edits(state, last.proposal, transaction.ROLLED_BACK)
            backup = str(state.backup_dir(last.proposal))
            return AdoptResult(last.proposal, "rolled back", last.files, backup, last.message)
        name, files, backup_dir, also = transaction.rollback(state, proposal, force=force)
    kept = sorted(p.name for p in backup_dir.glob("*.at-rollback"))
    done = "restored byte for byte" + (
        f"; the changed files were kept as {', '.join(kept)} in {backup_dir}" if kept else ""
    )
    later = [f"also rolled back {', '.join(also)}, adopted over it since"] if also else []
    message = "; ".join([*(r.message for r in recovered), done, *later])
    return AdoptResult(name, "rolled back", tuple(files), str(backup_dir), message)


def interrupted(project: PathLike) -> list[str]:
    """An interrupted adopt or rollback, and the command that recovers it (read only)."""
    from skillopt_sleep.stage import transaction

    return transaction.interrupted(ProjectState(project))


def reject(project: PathLike, proposal: str | None = None) -> AdoptResult:
    """Mark the proposal rejected and keep its edits from later nights
    (:func:`~skillopt_sleep.stage.transaction.refuse_edits`)."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep reject"):
        name, manifest = transaction.reject(state, proposal)
    return AdoptResult(name, "rejected", tuple(f["live_path"] for f in manifest["files"]))


def three_way_diff(project: PathLike, proposal: str | None = None) -> str:
    from skillopt_sleep.stage.transaction import three_way

    return three_way(ProjectState(project), proposal)
