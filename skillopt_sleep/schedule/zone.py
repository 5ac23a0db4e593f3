"""Wall clocks: the daemon's (the machine's zone as it is now, a daily trigger that runs once)
and the OS schedulers' (:func:`scheduler_zone`, for ``status``).

``local_zone`` is read again at every replan (a laptop travels), and a ``TZ`` the zone database
does not know (a POSIX rule) is followed as the C library reads it. ``night_trigger`` is
APScheduler's cron trigger without the second pass of the hour the clocks repeat, firing an hour
the clocks skip when they jump past it. cron and launchd are system daemons started without the
user's ``TZ``: they fire on the system zone (``/etc/localtime``), whatever the shell says.
"""

from __future__ import annotations

import functools
import os
import time
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any

from skillopt_sleep.schedule.at import DailyTime, first_instant


def night_trigger(at: DailyTime, zone: Any) -> Any:
    """APScheduler's cron trigger at ``at`` in ``zone``, less the second pass of a wall-clock
    time that the switch back from summer time repeats (it ran a second night an hour after the
    first), and firing a time the switch to summer time skips when the clock jumps past it, as
    cron does and ``status`` says (it fired at 03:30 for 02:30 with a zone database's zone, and
    at 01:30, before the time asked, with a POSIX ``TZ``)."""
    trigger: Any = _once_a_day()(hour=at.hour, minute=at.minute, timezone=zone)
    trigger.at = at
    return trigger


@functools.cache
def _once_a_day() -> type:
    from apscheduler.triggers.cron import CronTrigger

    class OnceADay(CronTrigger):  # type: ignore[misc]  # APScheduler 3 is untyped
        at: DailyTime

        def get_next_fire_time(self, previous: datetime | None, now: datetime) -> Any:
            moment = super().get_next_fire_time(previous, now)
            if moment is None:
                return moment
            if _skipped(moment, self.at, self.timezone):
                return _jump(moment, self.at, self.timezone, now)
            if not _repeated(moment):
                return moment
            day_after = datetime.combine(moment.date() + timedelta(days=1), datetime.min.time())
            return super().get_next_fire_time(None, day_after.replace(tzinfo=moment.tzinfo))

    return OnceADay


def _skipped(moment: datetime, at: DailyTime, zone: tzinfo) -> bool:
    """Whether the clock of ``zone`` never showed ``at`` at ``moment`` (a jump skipped it)."""
    shown = moment.astimezone(timezone.utc).astimezone(zone)
    return (shown.hour, shown.minute) != (at.hour, at.minute)


def _jump(moment: datetime, at: DailyTime, zone: tzinfo, now: datetime) -> datetime:
    """When the clock of ``zone`` jumps past ``at`` on the day APScheduler chose for ``moment``
    (``moment`` itself should that jump not be after ``now``)."""
    day = moment.astimezone(timezone.utc).astimezone(zone).date()
    wall = datetime(day.year, day.month, day.day, at.hour, at.minute)
    jump = first_instant(wall, zone).astimezone(zone)
    return jump if jump > now else moment


def _repeated(moment: datetime) -> bool:
    """Whether ``moment`` is the second pass of a wall-clock time its zone shows twice."""
    return moment.fold == 1 and moment.replace(fold=0).utcoffset() != moment.utcoffset()


LOCALTIME = "/etc/localtime"  # the system zone the C library reads when TZ is unset


def scheduler_zone(kind: str, localtime: str = LOCALTIME) -> tuple[tzinfo, str]:
    """The zone whose wall clock the ``kind`` scheduler fires on, and its name: the system zone
    for cron and launchd (a ``TZ`` exported in the shell that ran ``schedule`` or ``status``
    moved the next run ``status`` showed, not the run), this process's zone otherwise (Task
    Scheduler: Windows' configured zone)."""
    if kind in ("cron", "launchd"):
        return system_zone(localtime)
    zone = local_zone()
    return zone, str(zone)


def system_zone(localtime: str = LOCALTIME) -> tuple[tzinfo, str]:
    """The zone ``localtime`` describes; UTC without one (as the C library then reads it)."""
    from zoneinfo import ZoneInfo

    name = _zone_name(localtime)
    try:
        with open(localtime, "rb") as handle:
            return ZoneInfo.from_file(handle, key=name), name
    except (OSError, ValueError):
        return timezone.utc, "UTC"


def cron_tz_zone(value: str) -> tzinfo | None:
    """The zone a crontab's ``CRON_TZ=value`` names as the C library reads it (cronie sets it as
    ``TZ``): a zone of the database or a zone file's absolute path, with or without a leading
    ``:``; None for what this cannot read the same way (a POSIX rule, a zone the database lacks)."""
    from zoneinfo import ZoneInfo

    name = value.removeprefix(":")
    try:
        if name.startswith("/"):
            with open(name, "rb") as handle:
                return ZoneInfo.from_file(handle, key=name)
        return ZoneInfo(name)
    except (OSError, ValueError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return None


def _zone_name(localtime: str) -> str:
    """``Europe/Paris`` for a link into a zoneinfo folder (or from ``/etc/timezone`` beside it);
    the file's path when neither names it."""
    target = os.path.realpath(localtime)
    if "/zoneinfo/" in target:
        return target.split("/zoneinfo/", 1)[1]
    try:
        with open(os.path.join(os.path.dirname(localtime), "timezone"), encoding="utf-8") as f:
            named = f.readline().strip()
    except (OSError, UnicodeDecodeError):
        named = ""
    return named or f"the system zone ({localtime})"


def local_zone() -> tzinfo:
    """The machine's time zone as it is now (read again each time: a laptop's zone changes as it
    travels). A ``TZ`` that names no zone of the database (a POSIX rule such as
    ``EST5EDT,M3.2.0,M11.1.0``, a zone the installed database lacks) stopped the daemon with a
    traceback; it is followed as the C library reads it instead, as ``date`` shows the time."""
    from zoneinfo import ZoneInfoNotFoundError

    import tzlocal

    if hasattr(time, "tzset"):  # the C library's view of the zone, read again too
        time.tzset()
    try:
        zone: tzinfo = tzlocal.reload_localzone()
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return LibcZone()
    return zone


class LibcZone(tzinfo):
    """Local time exactly as ``time.localtime`` computes it, whatever ``TZ`` holds."""

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(seconds=self._local(dt).tm_gmtoff)

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=1) if self._local(dt).tm_isdst > 0 else timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return self._local(dt).tm_zone or "TZ"

    def fromutc(self, dt: datetime) -> datetime:
        seconds = (dt.replace(tzinfo=None) - datetime(1970, 1, 1)).total_seconds()
        return datetime.fromtimestamp(seconds).replace(tzinfo=self)  # sets fold

    def __repr__(self) -> str:
        return f"TZ={os.environ.get('TZ', '')}"

    __str__ = __repr__

    @staticmethod
    def _local(dt: datetime | None) -> time.struct_time:
        """The C library's fields at ``dt``'s wall-clock time (its fold picks a repeated one)."""
        return time.localtime(None if dt is None else dt.replace(tzinfo=None).timestamp())
