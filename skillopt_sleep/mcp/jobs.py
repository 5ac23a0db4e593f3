"""Background nights for the MCP server: a run or dry run starts in a thread and returns at once.

A night can take an hour with a real backend; a tool call must not hold the client that long, and
the stdio loop must keep answering. :class:`Jobs` starts ``run_night`` in a daemon thread, keeps
the engine's ``(stage, done, total)`` progress, and hands back a :class:`JobView` that the
``night_status`` tool reports. One job per project at a time here; across processes the engine's
own project lock still decides (a second night fails with BusyError, reported as the job's error).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from skillopt_core.errors import BusyError, exit_code_for
from skillopt_sleep.engine.records import NightReport

JobState = Literal["running", "finished", "failed"]
NightRunner = Callable[..., NightReport]


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
    report: NightReport | None = None
    stages: Mapping[str, str] = field(default_factory=dict)  # stage -> "done/total"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class Jobs:
    """The server's background nights, keyed by job id; thread-safe."""

    def __init__(self, runner: NightRunner | None = None) -> None:
        self._runner = runner
        self._lock = threading.Lock()
        self._jobs: dict[str, JobView] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._ids = itertools.count(1)

    def _run_night(self) -> NightRunner:
        if self._runner is not None:
            return self._runner
        from skillopt_sleep.engine import run_night

        return run_night

    def start(self, project: Path, config: Any, *, dry_run: bool) -> JobView:
        """Start a night for ``project``; BusyError if this server already runs one for it."""
        with self._lock:
            for job in self._jobs.values():
                if job.project == str(project) and job.state == "running":
                    raise BusyError(
                        f"a night for {project} is already running (job {job.id})",
                        hint="call night_status with that job id and wait for it to finish",
                    )
            job_id = f"night-{next(self._ids)}"
            view = JobView(job_id, str(project), dry_run, "running", _now())
            self._jobs[job_id] = view
        runner = self._run_night()

        def progress(stage: str, done: int, total: int) -> None:
            with self._lock:
                current = self._jobs[job_id]
                stages = {**current.stages, stage: f"{done}/{total}"}
                self._jobs[job_id] = replace(
                    current, stage=stage, done=done, total=total, stages=stages
                )

        def work() -> None:
            try:
                report = runner(project, config, dry_run=dry_run, progress=progress)
            except BaseException as exc:  # reported to the client, never raised into the void
                self._update(job_id, state="failed", error=str(exc), exit_code=exit_code_for(exc))
            else:
                self._update(job_id, state="finished", report=report)

        thread = threading.Thread(target=work, name=f"skillopt-sleep-{job_id}", daemon=True)
        with self._lock:
            self._threads[job_id] = thread
        thread.start()
        return self.get(job_id)

    def _update(self, job_id: str, **changes: Any) -> None:
        with self._lock:
            self._jobs[job_id] = replace(self._jobs[job_id], finished_at=_now(), **changes)

    def get(self, job_id: str) -> JobView:
        with self._lock:
            if job_id not in self._jobs:
                known = ", ".join(self._jobs) or "none yet"
                raise KeyError(f"no job {job_id!r} (known jobs: {known})")
            return self._jobs[job_id]

    def latest(self, project: Path | None = None) -> JobView | None:
        with self._lock:
            views = [j for j in self._jobs.values() if project is None or j.project == str(project)]
        return views[-1] if views else None

    def wait(self, job_id: str, timeout: float | None = None) -> JobView:
        """Block until the job ends (tests and the CLI's foreground mode; never a tool call)."""
        with self._lock:
            thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)
        return self.get(job_id)
