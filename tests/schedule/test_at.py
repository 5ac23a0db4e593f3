from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from skillopt_core.errors import EXIT_USAGE, UsageError
from skillopt_sleep.schedule import DailyTime, next_run, parse_at


@pytest.mark.parametrize(
    ("text", "hour", "minute"),
    [("03:17", 3, 17), ("3:05", 3, 5), ("23:59", 23, 59), ("00:00", 0, 0)],
)
def test_parse_at_accepts_times_of_day(text: str, hour: int, minute: int) -> None:
    assert parse_at(text) == DailyTime(hour, minute)
    assert str(parse_at(text)) == f"{hour:02d}:{minute:02d}"


@pytest.mark.parametrize(
    "text", ["25:00", "24:00", "12:60", "3", "03:7", "3pm", "", "03:17:00", "-1:00"]
)
def test_parse_at_rejects_everything_else_as_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_at(text)
    assert caught.value.exit_code == EXIT_USAGE


def test_next_run_is_today_when_still_ahead_else_tomorrow_in_utc() -> None:
    utc = timezone.utc
    at = DailyTime(3, 17)
    assert next_run(at, datetime(2026, 11, 23, 1, 0, tzinfo=utc), utc) == datetime(
        2026, 11, 23, 3, 17, tzinfo=utc
    )
    assert next_run(at, datetime(2026, 11, 23, 3, 17, tzinfo=utc), utc) == datetime(
        2026, 11, 24, 3, 17, tzinfo=utc
    )


def test_next_run_follows_the_local_wall_clock_across_dst() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    at = DailyTime(3, 17)
    # the night of the switch to winter time (2026-10-25): 03:17 CET is 02:17 UTC
    before = datetime(2026, 10, 24, 12, 0, tzinfo=timezone.utc)
    assert next_run(at, before, berlin) == datetime(2026, 10, 25, 2, 17, tzinfo=timezone.utc)
    # a summer night: 03:17 CEST is 01:17 UTC
    summer = datetime(2026, 7, 1, 12, 0, tzinfo=timezone.utc)
    assert next_run(at, summer, berlin) == datetime(2026, 7, 2, 1, 17, tzinfo=timezone.utc)
