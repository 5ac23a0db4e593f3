"""``skillopt-sleep daemon``: run the night in-process every day, and keep the harvest warm.

An APScheduler 3 ``BackgroundScheduler`` fires the night job on a ``CronTrigger`` at ``--at``
(local time) with ``coalesce=True`` and a ``misfire_grace_time`` of six hours: when the laptop
slept through 03:17, the missed night runs once on wake (never once per missed day), and a
machine that was off all day skips it rather than running a stale night at noon.
``max_instances=1`` and a lock shared with the refresher keep nights from overlapping.

A watchdog observer on the harness transcript directories notes every transcript write; the main
loop refreshes the harvest read-only (``harvest(..., commit=False)``: nothing the next night
would mine is consumed) once the writes settle (:mod:`.debounce`). SIGTERM and SIGINT end the
loop (SIGHUP too: a closed terminal): the observer is stopped and joined, the scheduler shut
down, exit 0. A night in progress finishes first (:meth:`Daemon.serve` waits for it before
returning; its state is crash-safe, so a second signal may kill it).

Everything that touches the world is injected (the night function, the refresher, the config
loader, the clock, the scheduler, the observer), so tests drive the wiring without waiting.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.debounce import Debouncer, Policy

MISFIRE_GRACE_SECONDS = 6 * 3600
JOB_ID = "skillopt-sleep-night"

log = logging.getLogger("skillopt_sleep.daemon")

Emit = Callable[[Mapping[str, Any]], None]
NightFn = Callable[[Path, Any], Any]  # run_night(project, config) -> NightReport
RefreshFn = Callable[[Path, Any], Mapping[str, Any] | None]
LoadFn = Callable[[], Any]  # the project's merged configuration, read anew for every night


def engine_run_night(project: Path, config: Any) -> Any:
    """The real night (imported on first use: the engine pulls in the miner and the core)."""
    from skillopt_sleep.engine import run_night

    return run_night(project, config)


def refresh_harvest(project: Path, config: Any) -> Mapping[str, Any] | None:
    """Read what is new since the last night without advancing the index (the night will read
    it again, from a warm page cache); None when a night holds the project right now."""
    from skillopt_sleep.engine import ProjectState
    from skillopt_sleep.harvest import harvest

    state = ProjectState(project)
    if state.running():
        return None
    first_night = not state.history_path.exists()
    state.ensure()
    result = harvest(
        project,
        sources=config.night.sources,
        since=config.night.since if first_night else None,
        homes=config.homes,
        commit=False,
    )
    return {"sessions": len(result.sessions)}


@dataclass(frozen=True)
class NightJob:
    """The scheduled job. Never raises: a failed night is reported and the next one still runs."""

    project: Path
    load_config: LoadFn
    run: NightFn = engine_run_night
    emit: Emit = lambda event: None
    busy: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> str:
        from skillopt_core.errors import SkillOptError

        with self.busy:
            self.emit({"event": "night-start", "project": str(self.project)})
            try:
                report = self.run(self.project, self.load_config())
            except SkillOptError as exc:
                self.emit(
                    {"event": "night-error", "error": exc.message, "exit_code": exc.exit_code}
                )
                return "error"
            except Exception as exc:  # a bug must not kill the daemon; the log keeps it
                log.exception("the night failed")
                self.emit({"event": "night-error", "error": repr(exc), "exit_code": 1})
                return "error"
            outcome = str(getattr(report, "outcome", "done"))
            self.emit(
                {
                    "event": "night-done",
                    "outcome": outcome,
                    "night_id": getattr(report, "night_id", ""),
                    "proposal": getattr(report, "proposal", ""),
                }
            )
            return outcome


def add_night_job(
    scheduler: Any,
    at: DailyTime,
    job: Callable[[], Any],
    *,
    misfire_grace: int = MISFIRE_GRACE_SECONDS,
    timezone: Any = None,
) -> Any:
    """Register ``job`` daily at ``at`` (local time unless ``timezone``) on an APScheduler 3
    scheduler, coalesced, with the misfire grace, one instance at a time."""
    from apscheduler.triggers.cron import CronTrigger

    trigger = CronTrigger(hour=at.hour, minute=at.minute, timezone=timezone or scheduler.timezone)
    return scheduler.add_job(
        job,
        trigger,
        id=JOB_ID,
        name="skillopt-sleep night",
        coalesce=True,
        misfire_grace_time=misfire_grace,
        max_instances=1,
        replace_existing=True,
    )


def warm_once(
    project: Path, load_config: LoadFn, refresh: RefreshFn, busy: threading.Lock, emit: Emit
) -> bool:
    """One refresh, unless a night is running in this process (then it is simply skipped)."""
    if not busy.acquire(blocking=False):
        return False
    try:
        counts = refresh(project, load_config())
    except Exception as exc:  # a torn transcript or a locked index: try again on the next change
        emit({"event": "refresh-error", "error": str(exc) or repr(exc)})
        return False
    finally:
        busy.release()
    if counts is None:
        return False
    emit({"event": "refresh", **counts})
    return True


@dataclass(frozen=True)
class Daemon:
    """The daemon's parts. :meth:`serve` runs until ``stop`` is set (by a signal or a test)."""

    project: Path
    at: DailyTime
    load_config: LoadFn
    watch_dirs: tuple[Path, ...] = ()
    run: NightFn = engine_run_night
    refresh: RefreshFn = refresh_harvest
    emit: Emit = lambda event: None
    policy: Policy = field(default_factory=Policy)
    clock: Callable[[], float] = time.monotonic
    poll_seconds: float = 1.0
    misfire_grace: int = MISFIRE_GRACE_SECONDS
    stop: threading.Event = field(default_factory=threading.Event)
    observe: Callable[[tuple[Path, ...], Callable[[], None]], Any] | None = None
    scheduler_factory: Callable[[], Any] | None = None

    def serve(self) -> int:
        from skillopt_sleep.schedule.watch import plan, start_observer

        busy = threading.Lock()
        job = NightJob(self.project, self.load_config, self.run, self.emit, busy)
        debouncer = Debouncer(self.policy, self.clock)
        watching = plan(self.watch_dirs)
        try:
            observer = (self.observe or start_observer)(watching.watched, debouncer.note)
        except OSError as exc:  # e.g. the inotify watch limit: nights still run, unwarmed
            self.emit({"event": "watch-error", "error": str(exc)})
            observer, watching = _NoObserver(), plan(())
        scheduler = (self.scheduler_factory or _background_scheduler)()
        night = add_night_job(scheduler, self.at, job, misfire_grace=self.misfire_grace)
        scheduler.start()
        try:
            self.emit(
                {
                    "event": "ready",
                    "project": str(self.project),
                    "at": str(self.at),
                    "next_run": _iso(getattr(night, "next_run_time", None)),
                    "watching": [str(p) for p in watching.watched],
                    "missing": [str(p) for p in watching.missing],
                }
            )
            while not self.stop.wait(self.poll_seconds):
                if debouncer.take():
                    warm_once(self.project, self.load_config, self.refresh, busy, self.emit)
        finally:
            observer.stop()
            observer.join()
            if busy.locked():
                self.emit({"event": "stopping", "waiting_for": "night"})
            # No new night starts after this; a running one finishes (the caller would otherwise
            # exit the interpreter under it). A second signal ends the process at once.
            scheduler.shutdown(wait=True)
            with busy:
                pass
            self.emit({"event": "stopped", "night_running": busy.locked()})
        return 0


class _NoObserver:
    def stop(self) -> None:
        pass

    def join(self) -> None:
        pass


def _background_scheduler() -> Any:
    from apscheduler.schedulers.background import BackgroundScheduler

    return BackgroundScheduler()


def _iso(moment: Any) -> str | None:
    if moment is None:
        return None
    from skillopt_sleep.jsonable import iso_utc

    return iso_utc(moment)


STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


def install_signal_handlers(stop: threading.Event) -> None:
    """SIGTERM / SIGINT / SIGHUP set ``stop`` (a clean exit 0 once a running night has finished);
    a second one exits at once (130)."""

    def handle(signum: int, frame: object) -> None:
        if stop.is_set():
            os._exit(130)  # a night thread would otherwise be joined at exit
        stop.set()

    for name in STOP_SIGNALS:  # SIGHUP: a closed terminal; Windows has only the first two
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), handle)
