"""The daemon's wall clock: the machine's zone as it is now, and a daily trigger that runs once.

``local_zone`` is read again at every replan (a laptop travels), and a ``TZ`` the zone database
does not know (a POSIX rule) is followed as the C library reads it. ``night_trigger`` is
APScheduler's cron trigger without the second pass of the hour the clocks repeat.
"""

from __future__ import annotations

import functools
import os
import time
from datetime import datetime, timedelta, tzinfo
from typing import Any

from skillopt_sleep.schedule.at import DailyTime


def night_trigger(at: DailyTime, zone: Any) -> Any:
    """APScheduler's cron trigger at ``at`` in ``zone``, less the second pass of a wall-clock
    time that the switch back from summer time repeats (it ran a second night an hour after the
    first)."""
    trigger: Any = _once_a_day()(hour=at.hour, minute=at.minute, timezone=zone)
    return trigger


@functools.cache
def _once_a_day() -> type:
    from apscheduler.triggers.cron import CronTrigger

    class OnceADay(CronTrigger):  # type: ignore[misc]  # APScheduler 3 is untyped
        def get_next_fire_time(self, previous: datetime | None, now: datetime) -> Any:
            moment = super().get_next_fire_time(previous, now)
            if moment is None or not _repeated(moment):
                return moment
            day_after = datetime.combine(moment.date() + timedelta(days=1), datetime.min.time())
            return super().get_next_fire_time(None, day_after.replace(tzinfo=moment.tzinfo))

    return OnceADay


def _repeated(moment: datetime) -> bool:
    """Whether ``moment`` is the second pass of a wall-clock time its zone shows twice."""
    return moment.fold == 1 and moment.replace(fold=0).utcoffset() != moment.utcoffset()


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
