"""``skillopt-sleep daemon``: run the night in-process every day, and keep the harvest warm.

An APScheduler 3 ``BackgroundScheduler`` fires the night job on a cron trigger at ``--at``
(local time) with ``coalesce=True`` and a ``misfire_grace_time`` of six hours: when the laptop
slept through 03:17, the missed night runs once on wake (never once per missed day), and a
machine that was off all day skips it rather than running a stale night at noon.
``max_instances=1`` and a lock shared with the refresher keep nights from overlapping.

The wall clock is not trusted to stay put. The scheduler sleeps on a monotonic timer, which
stands still while the machine is suspended and ignores clock steps, so every ``replan_seconds``
the loop wakes it to look at the wall clock again (a night missed while asleep runs within a
minute of waking, not hours later, past its grace). The local zone is read again then too: a
laptop that travelled runs its nights at ``--at`` where it is now. A ``--at`` inside the hour
that the switch back from summer time repeats runs once, on its first pass, as cron does.

A watchdog observer on the harness transcript directories notes every transcript write; the main
loop refreshes the harvest read-only (``harvest(..., commit=False)``: nothing the next night
would mine is consumed) once the writes settle (:mod:`.debounce`). The folders are not fixed at
start: every ``replan_seconds`` the loop asks ``watch_dirs`` again (the configuration read anew)
and the watcher follows (:class:`.watch.Watcher`): a folder that appeared is watched, one gone or
dropped from the configuration is let go, each change logged as a ``watch`` event.

SIGTERM and SIGINT end the loop (SIGHUP too: a closed terminal): the observer is stopped and
joined, the scheduler shut down, exit 0. A night in progress finishes first
(:meth:`Daemon.serve` waits for it before returning; its state is crash-safe, so a second signal
may kill it).

Everything that touches the world is injected (the night function, the refresher, the config
loader, the folders to watch, the clocks, the zone, the scheduler, the watcher), so tests drive
the wiring without waiting.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.debounce import Debouncer, Policy
from skillopt_sleep.schedule.watch import WatchChange
from skillopt_sleep.schedule.zone import local_zone, night_trigger

MISFIRE_GRACE_SECONDS = 6 * 3600
REPLAN_SECONDS = 60.0  # how often the daemon asks again which folders to watch
JOB_ID = "skillopt-sleep-night"

log = logging.getLogger("skillopt_sleep.daemon")

Emit = Callable[[Mapping[str, Any]], None]
NightFn = Callable[[Path, Any], Any]  # run_night(project, config) -> NightReport
RefreshFn = Callable[[Path, Any], Mapping[str, Any] | None]
LoadFn = Callable[[], Any]  # the project's merged configuration, read anew for every night
DirsFn = Callable[[], Iterable[Path]]  # the folders to watch now (see watch.configured_dirs)
ZoneFn = Callable[[], tzinfo]  # the machine's time zone as it is now


def engine_run_night(project: Path, config: Any) -> Any:
    """The real night (imported on first use: the engine pulls in the miner and the core)."""
    from skillopt_sleep.engine import run_night

    return run_night(project, config)


def refresh_harvest(project: Path, config: Any) -> Mapping[str, Any] | None:
    """Read what is new since the last night without advancing the index (the night will read
    it again, from a warm page cache); None when a night holds the project right now."""
    from skillopt_sleep.engine import ProjectState
    from skillopt_sleep.engine.gather import window
    from skillopt_sleep.harvest import harvest

    state = ProjectState(project)
    if state.running():
        return None
    state.ensure()
    result = harvest(  # the night's own window: never history the nights will not read
        project,
        sources=config.night.sources,
        since=window(state, config, datetime.now(timezone.utc)),
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
    return scheduler.add_job(
        job,
        night_trigger(at, timezone or scheduler.timezone),
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
    """The daemon's parts. :meth:`serve` runs until ``stop`` is set (by a signal or a test).
    ``observe(on_change)`` makes the started watcher (default :class:`.watch.Watcher`)."""

    project: Path
    at: DailyTime
    load_config: LoadFn
    watch_dirs: DirsFn = lambda: ()
    run: NightFn = engine_run_night
    refresh: RefreshFn = refresh_harvest
    emit: Emit = lambda event: None
    policy: Policy = field(default_factory=Policy)
    clock: Callable[[], float] = time.monotonic
    poll_seconds: float = 1.0
    replan_seconds: float = REPLAN_SECONDS
    misfire_grace: int = MISFIRE_GRACE_SECONDS
    stop: threading.Event = field(default_factory=threading.Event)
    observe: Callable[[Callable[[], None]], Any] | None = None
    scheduler_factory: Callable[[], Any] | None = None
    zone: ZoneFn = local_zone
    wall_clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)

    def serve(self) -> int:
        from skillopt_sleep.schedule.watch import Watcher

        busy = threading.Lock()
        job = NightJob(self.project, self.load_config, self.run, self.emit, busy)
        debouncer = Debouncer(self.policy, self.clock)
        try:
            watcher = (self.observe or Watcher)(debouncer.note)
        except OSError as exc:  # e.g. no inotify instance left: nights still run, unwarmed
            self.emit({"event": "watch-error", "error": str(exc)})
            watcher = _NoWatcher()
        first, problem = self._follow(watcher, "")
        planned = self.clock()
        scheduler = (self.scheduler_factory or _background_scheduler)()
        zone = self.zone()
        night = add_night_job(
            scheduler, self.at, job, misfire_grace=self.misfire_grace, timezone=zone
        )
        scheduler.start()
        try:
            self.emit(
                {
                    "event": "ready",
                    "project": str(self.project),
                    "at": str(self.at),
                    "next_run": _iso(getattr(night, "next_run_time", None)),
                    "zone": str(zone),
                    "watching": [str(p) for p in watcher.watched],
                    "missing": [str(p) for p in first.missing],
                }
            )
            while not self.stop.wait(self.poll_seconds):
                if self.clock() - planned >= self.replan_seconds:
                    planned = self.clock()
                    zone = self._keep_time(scheduler, zone)
                    change, problem = self._follow(watcher, problem)
                    if change.added or change.removed:
                        self.emit(
                            {
                                "event": "watch",
                                "added": [str(p) for p in change.added],
                                "removed": [str(p) for p in change.removed],
                            }
                        )
                if debouncer.take():
                    warm_once(self.project, self.load_config, self.refresh, busy, self.emit)
        finally:
            watcher.stop()
            watcher.join()
            if busy.locked():
                self.emit({"event": "stopping", "waiting_for": "night"})
            # No new night starts after this; a running one finishes (the caller would otherwise
            # exit the interpreter under it). A second signal ends the process at once.
            scheduler.shutdown(wait=True)
            with busy:
                pass
            self.emit({"event": "stopped", "night_running": busy.locked()})
        return 0

    def _keep_time(self, scheduler: Any, zone: tzinfo) -> tzinfo:
        """Wake ``scheduler`` to look at the wall clock (see the module docstring), and move the
        night to ``at`` in the zone the machine is in now when that changed; the zone followed
        is returned. A night due now (missed while asleep) is left to run first: the move waits
        for the next replan."""
        wake = getattr(scheduler, "wakeup", None)  # a stand-in scheduler may have none
        if wake is not None:
            wake()
        now_zone = self.zone()
        moment = self.wall_clock()
        later = night_trigger(self.at, now_zone).get_next_fire_time(None, moment)
        if later == night_trigger(self.at, zone).get_next_fire_time(None, moment):
            return zone  # the same zone, or one whose clock agrees
        job = scheduler.get_job(JOB_ID)
        if job is not None and job.next_run_time is not None and job.next_run_time <= moment:
            return zone
        scheduler.reschedule_job(JOB_ID, trigger=night_trigger(self.at, now_zone))
        self.emit({"event": "timezone", "zone": str(now_zone), "next_run": _iso(later)})
        return now_zone

    def _follow(self, watcher: Any, problem: str) -> tuple[WatchChange, str]:
        """Point ``watcher`` at the folders wanted now. A failure is emitted once (``problem``
        is the last one, "" when none); a configuration that cannot be read keeps the current
        watches rather than dropping them."""
        from skillopt_core.errors import SkillOptError

        try:
            dirs = tuple(self.watch_dirs())
        except (SkillOptError, OSError) as exc:  # e.g. the config file edited into an error
            error = exc.message if isinstance(exc, SkillOptError) else str(exc)
            if error != problem:
                self.emit({"event": "watch-error", "error": error})
            return WatchChange(), error
        change: WatchChange = watcher.update(dirs)
        for folder, error in change.failed:
            self.emit({"event": "watch-error", "path": str(folder), "error": error})
        return change, ""


class _NoWatcher:
    watched: tuple[Path, ...] = ()

    def update(self, dirs: Iterable[Path]) -> WatchChange:
        return WatchChange()

    def stop(self) -> None:
        pass

    def join(self) -> None:
        pass


def _background_scheduler() -> Any:
    from apscheduler.schedulers.background import BackgroundScheduler

    return BackgroundScheduler(timezone=local_zone())


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
