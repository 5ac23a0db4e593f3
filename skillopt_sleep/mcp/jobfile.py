"""A background night's job on disk: what ``night_status`` reads, from any server process.

    <project state>/jobs/<job id>/
        job.json      the JobView, rewritten atomically on every progress tick and at the end
                      (then with the night's NightOutcome: counts, not the report's records)
        request.json  what the night was asked (project, dry run, config overrides)
        night.log     the night process's output (tracebacks, if it ever had one)
        .lock         held by the night for its whole life
        cancelled     written by cancel_night before it signals the night
    <project state>/jobs/.lock   held while a server starts a night there (:func:`starting`)

The lock, not the pid, says whether a night still runs: the OS drops it however the process
ends, and a recycled pid holds no lock. A job file that says running while its lock is free is
a night that ended without finishing (killed, the machine restarted); it reads as failed, saying
what to do, or as cancelled when a cancel was asked (a night signalled before its process could
defer the signal dies of it: it finished when the cancel was asked, and its pid is the one its
server wrote in the lock, the night having had no time to record its own). Ids carry the start time (to the microsecond, so they sort in
the order the jobs started) and random digits, and are created exclusively, so they stay unique
across server restarts. Everything here is private like the rest of the state.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sys
import traceback
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any, Literal

from skillopt_core.errors import (
    EXIT_ERROR,
    SkillOptError,
    StorageError,
    exit_code_for,
)
from skillopt_core.lock import holder
from skillopt_sleep.engine.records import HeldOut, NightReport, Usage
from skillopt_sleep.engine.state import (
    ProjectState,
    make_private_dir,
    read_json,
    storage_error,
    write_json,
)
from skillopt_sleep.paths import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, state_dir

JobState = Literal["running", "finished", "failed"]
NightRunner = Callable[..., NightReport]
Progress = Callable[[str, int, int], None]  # = engine.night.Progress, without loading the pipeline

JOB_FILE, REQUEST_FILE, LOG_FILE, LOCK_FILE = "job.json", "request.json", "night.log", ".lock"
CANCEL_FILE = "cancelled"
START_WAIT_S = 30.0  # most a start waits for another server's start of the project to end
KEEP_JOBS = 30  # finished job folders kept per project (a night's report stays in its history)
_JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")

CANCELLED = (
    "cancelled: the night stopped before it finished; live files are untouched and nothing was "
    "staged (start it again with run or dry_run)"
)


def ended_without_finishing(log: str) -> str:
    return (
        "the night process ended without finishing (it was killed, or the machine restarted); "
        "nothing live was changed: start the night again with run or dry_run"
        + (f" (its output: {log})" if log else "")
    )


@dataclass(frozen=True)
class NightOutcome:
    """What a finished night did, in a size that does not grow with the night: counts where the
    :class:`NightReport` has records (a 500-family night's report is over 700 KB; the staged
    ``report`` tool and ``proposal_dir`` have every record)."""

    night_id: str
    outcome: str
    message: str
    sessions: int
    requests: int
    tasks: int
    family_count: int
    accepted_edits: int
    rejected_edits: int
    held_out: HeldOut | None
    usage: Usage
    proposal: str = ""
    proposal_dir: str = ""

    @classmethod
    def of(cls, report: NightReport) -> NightOutcome:
        return cls(
            report.night_id,
            report.outcome,
            report.message,
            report.sessions,
            report.requests,
            report.tasks,
            len(report.families),
            len(report.accepted),
            len(report.rejected),
            report.held_out,
            report.usage,
            report.proposal,
            report.proposal_dir,
        )


@dataclass(frozen=True)
class JobView:
    """What a client sees of one background night."""

    id: str
    project: str
    dry_run: bool
    state: JobState
    started_at: str
    stage: str = ""
    done: int = 0
    total: int = 0
    finished_at: str = ""
    error: str = ""
    exit_code: int = 0
    report: NightOutcome | None = None
    stages: Mapping[str, str] = field(default_factory=dict)  # stage -> "done/total"
    pid: int = 0  # the night process (0: it runs inside the server)
    log: str = ""  # where the night process's output goes ("": it runs inside the server)
    # keys of the project's config file the night leaves out (the file is not trusted): the user
    # runs `skillopt-sleep config trust` in a terminal if they wrote it
    not_used_from_project: tuple[str, ...] = ()


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


def jobs_root(project: Path) -> Path:
    return ProjectState(project).root / "jobs"


def create(project: Path) -> Path:
    """A new, empty job folder for ``project``; its name is the job id."""
    root = make_private_dir(jobs_root(project))
    while True:
        # the microseconds order the jobs of one second (the random digits do not)
        job_id = f"job-{datetime.now(timezone.utc):%Y%m%d-%H%M%S-%f}-{secrets.token_hex(3)}"
        directory = root / job_id
        try:
            directory.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            continue
        except OSError as exc:
            raise storage_error("create the job folder", directory, exc) from None
        directory.chmod(PRIVATE_DIR_MODE)  # mkdir's mode is masked by the umask
        return directory


def hold_lock(directory: Path) -> int:
    """Take the job's lock and return its descriptor: whoever holds it open is the night."""
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return fd


def starting(project: Path) -> AbstractContextManager[None]:
    """Held while a server checks that no night of ``project`` runs and creates its job, so that
    two servers starting one at once cannot both pass the check: the second waits (a start
    takes milliseconds) and then finds the first's job running."""
    from skillopt_core.lock import exclusive_waiting

    return exclusive_waiting(jobs_root(project), "start of a night", START_WAIT_S, 0.01)


def lock_holder(directory: Path) -> str | None:
    """The pid written in the job's lock while a night holds it, "unknown" when it wrote none,
    None when no night holds it."""
    return holder(directory)


def write_view(directory: Path, view: JobView) -> None:
    from skillopt_sleep.jsonable import to_jsonable

    write_json(directory / JOB_FILE, to_jsonable(view))


@cache
def _adapter() -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(JobView)


def _outcome_of_old_report(data: Any) -> Any:
    """A job file written before jobs kept a :class:`NightOutcome` holds the whole night report:
    its counts, so `night_status` still reads a night finished before an upgrade."""
    report = data.get("report") if isinstance(data, dict) else None
    if not isinstance(report, dict) or "families" not in report:
        return data
    edits = [e for e in report.get("edits") or () if isinstance(e, dict)]
    counts = {
        "family_count": len(report.get("families") or ()),
        "accepted_edits": sum(1 for e in edits if e.get("accepted")),
        "rejected_edits": sum(1 for e in edits if not e.get("accepted")),
    }
    kept = {k: v for k, v in report.items() if k in NightOutcome.__dataclass_fields__}
    return {**data, "report": {**kept, **counts}}


def read_view(directory: Path) -> JobView:
    """The job as its file says, except that a running job whose lock is free has ended:
    cancelled if a cancel was asked, else without finishing."""
    from pydantic import ValidationError

    path = directory / JOB_FILE
    try:
        view: JobView = _adapter().validate_python(_outcome_of_old_report(read_json(path)))
    except ValidationError:
        raise StorageError(f"{path} is damaged", hint=f"move {directory} aside") from None
    if view.state == "running" and lock_holder(directory) is None:
        pid = view.pid or (recorded_pid(directory) if view.log else 0)
        try:
            asked: float | None = (directory / CANCEL_FILE).stat().st_mtime
        except OSError:
            asked = None
        if asked is not None:  # it died of the cancel, as soon as it was asked
            cancel = KeyboardInterrupt()
            return replace(
                view,
                state="failed",
                finished_at=datetime.fromtimestamp(asked, timezone.utc).isoformat(),
                error=error_text(cancel),
                exit_code=exit_code_for(cancel),
                pid=pid,
            )
        return replace(
            view,
            state="failed",
            error=ended_without_finishing(view.log),
            exit_code=EXIT_ERROR,
            pid=pid,
        )
    return view


def recorded_pid(directory: Path) -> int:
    """The night process's pid as its server wrote it in the job's lock, which keeps it after
    the process has ended (a night that died before it recorded its own pid); 0 for none."""
    try:
        with open(directory / LOCK_FILE, "rb") as lock:
            first = lock.read(64).decode("ascii", "replace").partition("\n")[0].strip()
    except OSError:
        return 0
    return int(first) if first.isdigit() else 0


def ask_cancel(directory: Path) -> None:
    """Note that the job was asked to stop, before it is signalled."""
    (directory / CANCEL_FILE).touch(mode=PRIVATE_FILE_MODE)


def find(job_id: str) -> Path:
    """The folder of job ``job_id``, of whichever project (KeyError when there is none)."""
    if _JOB_ID.fullmatch(job_id):
        found = sorted(state_dir().glob(f"projects/*/jobs/{job_id}/{JOB_FILE}"))
        if found:
            return found[0].parent
    shown = repr(job_id[:80]) + ("..." if len(job_id) > 80 else "")
    raise KeyError(
        f"no job {shown}: call night_status without job_id for the project's latest night"
    )


def project_jobs(project: Path) -> list[Path]:
    """The job folders of ``project``, oldest first (ids begin with their start time)."""
    root = jobs_root(project)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / JOB_FILE).is_file())


def running_jobs(project: Path) -> list[JobView]:
    """The project's jobs that still run; a damaged job file is passed over (the engine's
    project lock still keeps a second night out), so it cannot block every night to come."""
    running = []
    for directory in project_jobs(project):
        try:
            view = read_view(directory)
        except StorageError:
            continue
        if view.state == "running":
            running.append(view)
    return running


def prune(project: Path, keep: int = KEEP_JOBS) -> None:
    """Remove all but the newest ``keep`` job folders whose night has ended."""
    for directory in project_jobs(project)[:-keep]:
        if lock_holder(directory) is None:
            shutil.rmtree(directory, ignore_errors=True)


def error_text(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return CANCELLED
    if isinstance(exc, SkillOptError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class JobRecorder:
    """Keeps one job's view and rewrites its file on every change (only the night writes it)."""

    def __init__(self, directory: Path, view: JobView) -> None:
        self.directory, self.view = directory, view
        write_view(directory, view)

    def _save(self, **changes: Any) -> None:
        self.view = replace(self.view, **changes)
        write_view(self.directory, self.view)

    def tick(self, stage: str, done: int, total: int) -> None:
        stages = {**self.view.stages, stage: f"{done}/{total}"}
        self._save(stage=stage, done=done, total=total, stages=stages)

    def finish(self, report: NightReport) -> None:
        self._save(state="finished", finished_at=now(), report=NightOutcome.of(report))

    def fail(self, exc: BaseException) -> None:
        self._save(
            state="failed", finished_at=now(), error=error_text(exc), exit_code=exit_code_for(exc)
        )


def record(
    recorder: JobRecorder,
    night: Callable[[Progress], NightReport],
    quiet: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> int:
    """Run ``night`` with a progress callback that records each tick, record how it ended, and
    return its exit code. ``quiet()``: a context in which a tick's write must not be cut short
    (the night process defers a cancel there)."""

    def progress(stage: str, done: int, total: int) -> None:
        with quiet():
            recorder.tick(stage, done, total)

    try:
        report = night(progress)
    except BaseException as exc:  # recorded for night_status, never raised into the void
        if not isinstance(exc, (SkillOptError, KeyboardInterrupt)):
            traceback.print_exc()  # the night's log (or the server's stderr)
        recorder.fail(exc)
        return exit_code_for(exc)
    recorder.finish(report)
    return 0
