"""Whether the OS scheduler itself holds a project's entry, whatever ``schedule.json`` says.

The record can go while the entry stays: a user deletes the state directory, and the crontab
line (which recreates the logs folder) keeps running a night every day. ``status`` asks here when
there is no record: the crontab (``crontab -l``), the launchd agent's plist, or the scheduled
task (``schtasks /Query``), each looked up under the project's key as :mod:`.install` writes it.
A scheduler that cannot be asked (no ``crontab`` program) counts as holding nothing.
"""

from __future__ import annotations

import plistlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule import cron, launchd, windows
from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.install import Host, read_crontab
from skillopt_sleep.schedule.runner import ScheduleError


@dataclass(frozen=True)
class Found:
    """An entry in the OS scheduler: where (as a user would name it) and, when the entry says
    so plainly, the time it fires."""

    where: str
    at: DailyTime | None = None


def find_entry(host: Host, key: str) -> Found | None:
    """``key``'s entry in ``host``'s scheduler, or None."""
    try:
        return _FIND[host.kind](host, key)
    except (ScheduleError, OSError):  # status must answer; it then shows no entry
        return None


def _in_crontab(host: Host, key: str) -> Found | None:
    table = read_crontab(host.runner)
    return Found("crontab", cron.block_time(table, key)) if cron.has_block(table, key) else None


def _in_launchd(host: Host, key: str) -> Found | None:
    plist = Path(launchd.plist_path(host.home, key))
    if not plist.is_file():
        return None
    try:
        when = plistlib.loads(plist.read_bytes())["StartCalendarInterval"]
        at: DailyTime | None = DailyTime(int(when["Hour"]), int(when["Minute"]))
    except (OSError, ValueError, KeyError, TypeError, UsageError):  # edited by hand: still ours
        at = None
    return Found(f"launchd agent {plist}", at)


def _in_schtasks(host: Host, key: str) -> Found | None:
    done = host.runner(windows.query_argv(key))
    return Found(f"Task Scheduler task {windows.task_name(key)}") if done.returncode == 0 else None


_FIND: Mapping[str, Callable[[Host, str], Found | None]] = {
    "cron": _in_crontab,
    "launchd": _in_launchd,
    "schtasks": _in_schtasks,
}
