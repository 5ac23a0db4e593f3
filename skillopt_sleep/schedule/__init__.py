"""Run a night every day: an OS entry (cron / launchd / Task Scheduler) or the ``daemon``.

    from skillopt_sleep.schedule import install_schedule, remove_schedule, schedule_info

    install_schedule(project, "03:17", ["--target", "claude-cli"])   # -> ScheduleRecord
    schedule_info(project)      # what `status` shows: time, next run (UTC), command, installed
    remove_schedule(project)    # removes exactly what was written (see schedule.json)

The entry runs the absolute interpreter with ``-m skillopt_sleep run --project <abs>`` and the
saved profile, with the PATH captured now, appending to ``<state>/logs/night.log``; when
its engine or project has gone it says so there instead, with the fix (:mod:`.health`, which
``status`` and ``doctor`` ask too). The
long-running alternative, :mod:`skillopt_sleep.schedule.daemon` (APScheduler + watchdog), is
imported only by the ``daemon`` command. Nothing here imports anything heavy.
"""

from __future__ import annotations

from skillopt_sleep.schedule.at import DailyTime, next_run, parse_at
from skillopt_sleep.schedule.entry import Entry, build_entry
from skillopt_sleep.schedule.info import schedule_info
from skillopt_sleep.schedule.install import (
    Host,
    Removal,
    install_schedule,
    platform_family,
    preview_schedule,
    remove_schedule,
)
from skillopt_sleep.schedule.record import ScheduleRecord
from skillopt_sleep.schedule.runner import Completed, Runner, ScheduleError
from skillopt_sleep.schedule.where import ScheduleFiles

__all__ = [
    "Completed",
    "DailyTime",
    "Entry",
    "Host",
    "Removal",
    "Runner",
    "ScheduleError",
    "ScheduleFiles",
    "ScheduleRecord",
    "build_entry",
    "install_schedule",
    "next_run",
    "parse_at",
    "platform_family",
    "preview_schedule",
    "remove_schedule",
    "schedule_info",
]
