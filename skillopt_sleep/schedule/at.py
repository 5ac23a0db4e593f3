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
    """The first moment strictly after ``now`` when the local clock (``tz``, default this
    process's zone) shows ``at``, in UTC. A time the clocks repeat (the switch back from summer
    time) counts once, on its first pass; a time they skip (02:30 on the day they jump from 02:00
    to 03:00) comes when they jump past it, as cron runs it "soon after the change"."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    local = now.astimezone(tz) if tz is not None else now.astimezone()
    for days in range(3):
        day = local.date() + timedelta(days=days)
        moment = first_instant(datetime(day.year, day.month, day.day, at.hour, at.minute), tz)
        if moment > now:
            return moment.astimezone(timezone.utc)
    raise AssertionError("unreachable: a daily time recurs within two days")  # pragma: no cover


def first_instant(wall: datetime, tz: tzinfo | None) -> datetime:
    """The first moment the clock of ``tz`` (None: this process's zone) shows the naive ``wall``
    time or later: ``wall`` itself when the clock shows it, else the jump that skips it."""
    moment = wall.replace(tzinfo=tz) if tz is not None else wall.astimezone()
    if _wall_clock(moment, tz) == wall:
        return moment  # fold 0: the first pass of a repeated time
    early, late = moment - _JUMP_RANGE, moment + _JUMP_RANGE
    if not _wall_clock(early, tz) < wall <= _wall_clock(late, tz):
        return moment  # no jump nearby to find (a zone library's own answer then stands)
    lo, hi = int(early.timestamp()), int(late.timestamp())
    while hi - lo > 1:  # the last second before the jump, and the first one after it
        mid = (lo + hi) // 2
        if _wall_clock(datetime.fromtimestamp(mid, timezone.utc), tz) < wall:
            lo = mid
        else:
            hi = mid
    return datetime.fromtimestamp(hi, timezone.utc)


_JUMP_RANGE = timedelta(hours=3)  # clock jumps are at most a few hours (DST: one, rarely two)


def _wall_clock(moment: datetime, tz: tzinfo | None) -> datetime:
    """What the clock of ``tz`` (None: this process's zone) shows at ``moment``, naive."""
    in_utc = moment.astimezone(timezone.utc)  # astimezone to a moment's own zone changes nothing
    return (in_utc.astimezone(tz) if tz is not None else in_utc.astimezone()).replace(tzinfo=None)
