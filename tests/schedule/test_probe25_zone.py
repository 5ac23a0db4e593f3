"""The next run ``status`` shows is the one the scheduler fires: on the scheduler's clock (cron's
is the system zone, not a ``TZ`` exported in the shell), labelled with that zone, and across the
switch to summer time at the moment the clocks jump past a time they skip."""

from __future__ import annotations

import contextlib
import json
import os
import time
import zoneinfo
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.schedule import DailyTime, Host, install_schedule, next_run, schedule_info
from skillopt_sleep.schedule.zone import LibcZone, night_trigger
from tests.schedule.conftest import FakeOS

UTC = timezone.utc
NEW_YORK = "America/New_York"


def _zone_file(name: str) -> Path:
    for folder in zoneinfo.TZPATH:
        candidate = Path(folder) / name
        if candidate.is_file():
            return candidate
    pytest.skip(f"no {name} file in the system zone database")


@pytest.fixture
def system_new_york(tmp_path: Path) -> str:
    """An ``/etc/localtime`` for a machine whose system zone is New York."""
    localtime = tmp_path / "etc" / "localtime"
    localtime.parent.mkdir()
    localtime.symlink_to(_zone_file(NEW_YORK))
    return str(localtime)


@pytest.fixture
def shell_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The user's shell exports ``TZ=Asia/Tokyo``; the process's zone is restored after."""
    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset (POSIX)")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _host(fake_os: FakeOS, tmp_path: Path, localtime: str) -> Host:
    return Host("linux", fake_os, str(tmp_path / "home"), 501, localtime)


@pytest.mark.usefixtures("shell_tz")
def test_status_shows_the_cron_run_on_the_system_clock_not_the_shell_tz(
    fake_os: FakeOS, project: Path, tmp_path: Path, system_new_york: str
) -> None:
    """With ``TZ=Asia/Tokyo`` in the shell and the system in New York, ``status`` said the 03:17
    cron night ran at 18:17Z (03:17 in Tokyo); cron fires at 03:17 in New York, 08:17Z."""
    host = _host(fake_os, tmp_path, system_new_york)
    install_schedule(project, "03:17", host=host)
    now = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    info = schedule_info(project, now=now, host=host)
    assert info["next_run"] == "2026-11-24T08:17:00Z", info
    assert info["zone"] == NEW_YORK and info["time"] == f"03:17 {NEW_YORK}"
    assert info["next_run_local"] == "2026-11-24T03:17:00-05:00"
    assert "TZ=Asia/Tokyo" in info["zone_note"] and "17:17" in info["zone_note"]


def test_an_entry_found_without_a_record_is_timed_on_the_system_clock_too(
    fake_os: FakeOS, project: Path, tmp_path: Path, system_new_york: str
) -> None:
    host = _host(fake_os, tmp_path, system_new_york)
    install_schedule(project, "03:17", host=host)
    from skillopt_sleep.schedule import ScheduleFiles

    ScheduleFiles.for_project(project).record.unlink()
    info = schedule_info(project, now=datetime(2026, 11, 23, 12, 0, tzinfo=UTC), host=host)
    assert info["installed"] and not info["recorded"]
    assert info["next_run"] == "2026-11-24T08:17:00Z" and info["zone"] == NEW_YORK


def test_a_machine_without_localtime_runs_cron_on_utc(
    fake_os: FakeOS, project: Path, tmp_path: Path
) -> None:
    host = _host(fake_os, tmp_path, str(tmp_path / "no such localtime"))
    install_schedule(project, "03:17", host=host)
    info = schedule_info(project, now=datetime(2026, 11, 23, 12, 0, tzinfo=UTC), host=host)
    assert info["next_run"] == "2026-11-24T03:17:00Z" and info["zone"] == "UTC"


@pytest.mark.usefixtures("shell_tz")
def test_schedule_says_which_clock_the_time_is_read_on(
    monkeypatch: pytest.MonkeyPatch, project: Path, tmp_path: Path, system_new_york: str
) -> None:
    """``schedule`` said "every day at 03:17 local time" in a shell whose TZ was not the zone
    cron runs on: the night came at 17:17 of the user's clock."""
    fake_os = FakeOS()
    monkeypatch.setattr(
        "skillopt_sleep.cli.schedule._host", lambda: _host(fake_os, tmp_path, system_new_york)
    )
    result = CliRunner().invoke(app, ["schedule", "-p", str(project), "--at", "03:17"])
    assert result.exit_code == 0, result.output
    assert f"every day at 03:17 {NEW_YORK}" in result.output
    assert "TZ=Asia/Tokyo" in result.output
    as_json = CliRunner().invoke(app, ["schedule", "-p", str(project), "--at", "4:00", "--json"])
    assert json.loads(as_json.stdout)["zone"] == NEW_YORK


# --- the switch to summer time: 02:00 -> 03:00 in New York on 2026-03-08 (07:00Z) -----------

SPRING = datetime(2026, 3, 8, 7, 0, tzinfo=UTC)  # the clocks jump from 02:00 EST to 03:00 EDT
MIDNIGHT = datetime(2026, 3, 8, 5, 0, tzinfo=UTC)  # 00:00 EST that day


@pytest.fixture
def posix_new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset (POSIX)")
    monkeypatch.setenv("TZ", "EST5EDT,M3.2.0,M11.1.0")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
    import tzlocal

    with contextlib.suppress(Exception):
        tzlocal.reload_localzone()


def test_a_skipped_time_runs_when_the_clocks_jump_past_it() -> None:
    """cron runs a 02:30 job "soon after the change" (03:00 EDT); ``status`` said 03:30 EDT."""
    zone = zoneinfo.ZoneInfo(NEW_YORK)
    assert next_run(DailyTime(2, 30), MIDNIGHT, zone) == SPRING
    assert next_run(DailyTime(2, 0), MIDNIGHT, zone) == SPRING
    assert next_run(DailyTime(3, 0), MIDNIGHT, zone) == SPRING
    assert next_run(DailyTime(1, 59), MIDNIGHT, zone) == SPRING - timedelta(minutes=1)
    after = next_run(DailyTime(2, 30), SPRING, zone)
    assert after == datetime(2026, 3, 9, 6, 30, tzinfo=UTC)  # the next day has its 02:30


@pytest.mark.usefixtures("posix_new_york")
def test_a_skipped_time_in_the_process_zone_is_not_placed_before_it() -> None:
    """Without a zone (this process's), 02:30 came out as 01:30 EST: an hour before the time
    asked, which never came."""
    assert next_run(DailyTime(2, 30), MIDNIGHT) == SPRING
    assert next_run(DailyTime(2, 30), MIDNIGHT, LibcZone()) == SPRING


def test_the_time_the_clocks_repeat_still_runs_on_its_first_pass() -> None:
    zone = zoneinfo.ZoneInfo(NEW_YORK)
    autumn = datetime(2026, 11, 1, 4, 0, tzinfo=UTC)  # 00:00 EDT; 01:xx comes twice
    assert next_run(DailyTime(1, 30), autumn, zone) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)
    between = datetime(2026, 11, 1, 5, 45, tzinfo=UTC)
    assert next_run(DailyTime(1, 30), between, zone) == datetime(2026, 11, 2, 6, 30, tzinfo=UTC)


def _fires(zone: object) -> tuple[datetime, datetime]:
    trigger = night_trigger(DailyTime(2, 30), zone)
    first = trigger.get_next_fire_time(None, MIDNIGHT.astimezone(zoneinfo.ZoneInfo(NEW_YORK)))
    second = trigger.get_next_fire_time(first, first + timedelta(milliseconds=3))
    return first.astimezone(UTC), second.astimezone(UTC)


def test_the_daemon_runs_a_skipped_time_when_status_says() -> None:
    """The daemon ran the 02:30 night at 03:30 EDT while ``status`` (and cron) said 03:00."""
    assert _fires(zoneinfo.ZoneInfo(NEW_YORK)) == (
        SPRING,
        datetime(2026, 3, 9, 6, 30, tzinfo=UTC),
    )


@pytest.mark.usefixtures("posix_new_york")
def test_the_daemon_under_a_posix_tz_runs_a_skipped_time_after_the_jump() -> None:
    """Under ``TZ=EST5EDT,...`` the daemon ran the 02:30 night at 01:30 EST, before its time."""
    assert os.environ["TZ"].startswith("EST5EDT")
    assert _fires(LibcZone()) == (SPRING, datetime(2026, 3, 9, 6, 30, tzinfo=UTC))
