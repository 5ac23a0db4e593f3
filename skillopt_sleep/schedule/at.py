"""The time of day a night runs (``--at HH:MM``, local wall-clock time) and when that next is.

Every OS scheduler we write to (cron, launchd, Task Scheduler) and APScheduler's cron trigger
fire on the machine's local wall clock, so the time is kept as an hour and a minute, never as a
UTC instant; :func:`next_run` turns it into the next UTC moment for ``status``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo

from skillopt_core.errors import UsageError

_AT = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class DailyTime:
    """A wall-clock time of day, 00:00-23:59."""

    hour: int
    minute: int

    def __post_init__(self) -> None:
        if not (0 <= self.hour <= 23 and 0 <= self.minute <= 59):
            raise UsageError(f"{self.hour}:{self.minute:02d} is not a time of day (00:00-23:59)")

    def __str__(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


def parse_at(text: str) -> DailyTime:
    """``"03:17"`` or ``"3:17"`` -> DailyTime; anything else is a UsageError (exit 2)."""
    match = _AT.match(text or "")
    if not match:
        raise UsageError(
            f"--at {text!r} is not a time of day", hint="give HH:MM in 24-hour time, e.g. 03:17"
        )
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise UsageError(
            f"--at {text!r} is not a time of day", hint="hours run 00-23 and minutes 00-59"
        )
    return DailyTime(hour, minute)


def next_run(at: DailyTime, now: datetime, tz: tzinfo | None = None) -> datetime:
    """The first moment strictly after ``now`` when the local clock (``tz``, default the
    machine's zone) shows ``at``, in UTC. A time skipped by a DST jump moves to the next day that
    has it only if the zone library says so; we never guess offsets ourselves."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    local = now.astimezone(tz) if tz is not None else now.astimezone()
    for days in range(3):
        day = local.date() + timedelta(days=days)
        naive = datetime(day.year, day.month, day.day, at.hour, at.minute)
        moment = naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()
        if moment > now:
            return moment.astimezone(timezone.utc)
    raise AssertionError("unreachable: a daily time recurs within two days")  # pragma: no cover
