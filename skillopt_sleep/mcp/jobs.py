"""Background nights for the MCP server: a run or dry run starts and the tool returns at once.

A night can take an hour with a real backend; a tool call must not hold the client that long,
and the night must not die with the server (the client session ends, the harness restarts it).
:class:`Jobs` starts each night in a detached process of its own (:mod:`._night_child`: a new
session, stdin from /dev/null, output to the job's log) that records its progress and outcome in
a job file (:mod:`.jobfile`), so ``night_status`` reads it from any server process, and
``cancel_night`` stops it with SIGTERM to its process group. One night per project: a job that
still runs refuses a second here, whichever server started it (two servers' starts of a
project take turns, :func:`.jobfile.starting`, so both cannot pass the check), and so does a
night (or adopt) that holds the engine's project lock, started elsewhere (the CLI, the
scheduler); should one take the lock after that check, the lock still decides (the second night
fails with BusyError, recorded as the job's error).

With an injected ``runner`` (tests), or on Windows (no fork-and-inherit of the job's lock), the
night runs in a thread of the server instead, recorded in the same job file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from skillopt_core.errors import BusyError, SkillOptError, UsageError
from skillopt_sleep._display import displayable
from skillopt_sleep.mcp import jobfile
from skillopt_sleep.mcp.jobfile import JobRecorder, JobState, JobView, NightRunner
from skillopt_sleep.paths import PRIVATE_FILE_MODE

__all__ = ["CHILD", "JobState", "JobView", "Jobs", "NightRunner"]

CHILD: tuple[str, ...] = (sys.executable, "-m", "skillopt_sleep.mcp._night_child")
"""The command of a night's process; the job folder is appended."""


class Jobs:
    """The background nights of the server's projects, read from their job files."""

    def __init__(self, runner: NightRunner | None = None, command: Sequence[str] = CHILD) -> None:
        self._runner = runner
        self._command = tuple(command)
        self._lock = threading.Lock()  # tool calls run in worker threads
        self._children: dict[str, subprocess.Popen[bytes]] = {}
        self._threads: dict[str, threading.Thread] = {}

    @property
    def detached(self) -> bool:
        return self._runner is None and sys.platform != "win32"

    def start(self, project: Path, overrides: Mapping[str, Any], *, dry_run: bool) -> JobView:
        """Start a night for ``project`` with the config ``overrides``; BusyError while a job
        of the project still runs, or anything else holds its night lock."""
        from skillopt_sleep.engine import ProjectState, load_config

        # a bad setting fails the call itself; the arguments were chosen by a model, so they may
        # narrow the night (fewer calls, no adopt) but never widen it (load_config refuses)
        config = load_config(project, chosen_by_model=dict(overrides))
        with self._lock, jobfile.starting(project):  # another server's start too
            self._reap()
            running = jobfile.running_jobs(project)
            if running:
                job_id = running[-1].id
                raise BusyError(
                    f"a night for {project} is already running (job {job_id})",
                    hint=f"call night_status with job_id {job_id} until it has finished, or "
                    "cancel_night to stop it",
                )
            elsewhere = ProjectState(project).running()
            if elsewhere:
                raise BusyError(
                    f"something is already running for {project} (pid {elsewhere}): a night "
                    "started elsewhere (the CLI, the schedule), or an adopt or rollback",
                    hint="wait until `status` no longer shows it running, then start this one",
                )
            jobfile.prune(project)
            directory = jobfile.create(project)
            lock = jobfile.hold_lock(directory)
            log = str(directory / jobfile.LOG_FILE) if self.detached else ""
            view = JobView(
                directory.name,
                str(project),
                dry_run,
                "running",
                jobfile.now(),
                log=log,
                not_used_from_project=tuple(sorted(displayable(k) for k in config.refused)),
            )
            try:
                jobfile.write_view(directory, view)
                if self.detached:
                    return self._spawn(directory, view, lock, overrides)
                self._thread(directory, view, lock, config)
                lock = -1  # the thread closes it when the night has ended
                return view
            finally:
                if lock >= 0:
                    os.close(lock)

    def _spawn(
        self, directory: Path, view: JobView, lock: int, overrides: Mapping[str, Any]
    ) -> JobView:
        """The night's own process, holding ``lock`` (inherited) for as long as it lives."""
        from skillopt_sleep.engine.state import write_json

        request = {"project": view.project, "dry_run": view.dry_run, "overrides": dict(overrides)}
        write_json(directory / jobfile.REQUEST_FILE, request)
        log = os.open(view.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE_MODE)
        try:
            child = subprocess.Popen(
                [*self._command, str(directory)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=view.project,
                start_new_session=True,
                pass_fds=(lock,),
            )
        except OSError as exc:
            failed = SkillOptError(
                f"cannot start the night process: {exc.strerror or exc}",
                hint=f"check that {self._command[0]} runs",
            )
            JobRecorder(directory, view).fail(failed)
            raise failed from None
        finally:
            os.close(log)
        os.ftruncate(lock, 0)  # whoever reads the lock learns the pid to signal
        os.write(lock, f"{child.pid}\nskillopt-sleep night (MCP job {view.id})".encode())
        self._children[view.id] = child
        return replace(view, pid=child.pid)

    def _thread(self, directory: Path, view: JobView, lock: int, config: Any) -> None:
        runner = self._runner
        if runner is None:
            from skillopt_sleep.engine import run_night

            runner = run_night
        chosen: NightRunner = runner
        project = Path(view.project)

        def work() -> None:
            try:
                jobfile.record(
                    JobRecorder(directory, view),
                    lambda progress: chosen(
                        project, config, dry_run=view.dry_run, progress=progress
                    ),
                )
            finally:
                os.close(lock)

        thread = threading.Thread(target=work, name=f"skillopt-sleep-{view.id}", daemon=True)
        self._threads[view.id] = thread
        thread.start()

    def _reap(self) -> None:
        """Collect the exit status of our ended night processes (no zombies left behind)."""
        for job_id, child in list(self._children.items()):
            if child.poll() is not None:
                del self._children[job_id]

    def get(self, job_id: str) -> JobView:
        """The job ``job_id`` of any project, whichever server started it (KeyError if none)."""
        with self._lock:
            self._reap()
        return jobfile.read_view(jobfile.find(job_id))

    def latest(self, project: Path) -> JobView | None:
        """The project's most recent job, or None."""
        with self._lock:
            self._reap()
        jobs = jobfile.project_jobs(project)
        return jobfile.read_view(jobs[-1]) if jobs else None

    def cancel(self, job_id: str) -> JobView:
        """SIGTERM to the night's process group; the job file says when it has stopped. A job
        that has already ended is returned as it is."""
        directory = jobfile.find(job_id)
        view = jobfile.read_view(directory)
        if view.state != "running":
            return view
        with self._lock:  # a night this server is starting has its pid in the lock by then
            pid = jobfile.lock_holder(directory) or ""
        if not pid.isdigit() or int(pid) <= 1 or int(pid) in (os.getpid(), os.getpgrp()):
            raise UsageError(
                f"job {job_id} runs inside the server process, which cannot stop it",
                hint="wait for it to finish (night_status)",
            )
        jobfile.ask_cancel(directory)  # it may die of the signal before it can record it
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.killpg(int(pid), signal.SIGTERM)
        return jobfile.read_view(directory)

    def wait(self, job_id: str, timeout: float | None = None) -> JobView:
        """Block until a night this server started ends (tests; never a tool call)."""
        with self._lock:
            child, thread = self._children.get(job_id), self._threads.get(job_id)
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout)
        if thread is not None:
            thread.join(timeout)
        return self.get(job_id)
