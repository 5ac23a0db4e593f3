"""The engine's read side: ``status``, ``proposals`` and what an interrupted transaction left.

Read only and fast: small state files, no model, no lock taken (:mod:`.report_view` reads the
reports). Never prints; raises :mod:`skillopt_core.errors` classes that carry their exit codes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from skillopt_core.lock import Holder
from skillopt_sleep.engine.records import NIGHT_COMMAND, NightSummary, Proposal, Status
from skillopt_sleep.engine.state import ProjectState, read_json, read_lines

PathLike = str | os.PathLike[str]


def proposal_of(directory: Path, *, verdict_of: tuple[str, ...] | None = None) -> Proposal:
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
    return [proposal_of(d) for d in ProjectState(project).proposals()]


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
    nights = tuple(night_summary(r) for r in read_lines(state.history_path)[-limit:])
    staged = [proposal_of(d, verdict_of=("pending",)) for d in state.proposals()]
    pending = tuple(p for p in staged if p.state == "pending")
    damaged = tuple(damaged_note(Path(p.directory)) for p in staged if p.state == "damaged")
    config = load_config(state.project)
    running, unfinished = _unfinished_transactions(state)
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
        running=_running(running) if running else None,
        health=backend_health(config) if check_backends else {},
        ended_since_last_night=_ended_sessions(state, nights[-1].started_at if nights else ""),
        interrupted=unfinished,
        warnings=((problem,) if problem else ()) + damaged,
    )


def night_summary(record: dict[str, Any]) -> NightSummary:
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
            tables = [
                r[0]
                for r in db.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name != 'meta'"
                )
            ]
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


def interrupted(project: PathLike) -> list[str]:
    """An interrupted adopt or rollback, and the command that recovers it (read only)."""
    from skillopt_sleep.stage import transaction

    return transaction.interrupted(ProjectState(project))


def _running(held: Holder) -> dict[str, str]:
    """The lock's holder for ``status``: its pid, its command, and what it is doing in words."""
    doing = "a night" if held.what in (NIGHT_COMMAND, "unknown") else held.what
    return {"pid": held.pid, "command": held.what, "doing": doing}


def _unfinished_transactions(state: ProjectState) -> tuple[Holder | None, tuple[str, ...]]:
    """The lock's holder, and the adopts and rollbacks the journal shows unfinished. While a
    command holds the lock, one it is writing looks interrupted (its "begin" has no "done" yet),
    and whatever it holds the lock for recovers a truly interrupted one first: none is named
    then. The lock is tested before and after the journal is read, so one that began or ended
    meanwhile is not taken for interrupted either."""
    before = state.lock_holder()
    found = interrupted(state.project)
    after = state.lock_holder() if found else before
    if before or after:
        return before or after, ()
    return None, tuple(found)
