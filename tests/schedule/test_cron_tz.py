"""A ``CRON_TZ=Zone`` line in the user's crontab makes cronie fire every entry below it on that
zone's clock. Our block goes where none applies (so it fires at the time asked, on the system
clock ``status`` shows), the user's entries keep their zone, ``unschedule`` gives the crontab back
byte for byte, and an entry an older version appended below a ``CRON_TZ`` is reported by
``status`` and ``doctor`` with the fix (schedule again)."""

from __future__ import annotations

import json
import zoneinfo
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.install.doctor import schedule_checks
from skillopt_sleep.schedule import (
    DailyTime,
    Host,
    ScheduleFiles,
    install_schedule,
    platform_family,
    remove_schedule,
    schedule_info,
)
from skillopt_sleep.schedule.cron import BEGIN, block_zone, cron_block, zone_setting
from skillopt_sleep.schedule.entry import build_entry
from skillopt_sleep.schedule.runner import run_command
from tests._guard import StandIns
from tests.schedule.conftest import FakeOS

pytestmark = pytest.mark.usefixtures("fake_scheduler")

NEW_YORK = "America/New_York"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
USERS = "MAILTO=dev@example.com\nCRON_TZ=UTC\n0 9 * * * /usr/bin/report\n30 2 * * 1 backup\n"


@pytest.fixture
def system_new_york(tmp_path: Path) -> str:
    """An ``/etc/localtime`` for a machine whose system zone (cron's clock) is New York."""
    for folder in zoneinfo.TZPATH:
        if (Path(folder) / NEW_YORK).is_file():
            localtime = tmp_path / "etc" / "localtime"
            localtime.parent.mkdir()
            localtime.symlink_to(Path(folder) / NEW_YORK)
            return str(localtime)
    pytest.skip(f"no {NEW_YORK} file in the system zone database")


def _host(fake: FakeOS, tmp_path: Path, localtime: str) -> Host:
    return Host("linux", fake, str(tmp_path / "home"), 501, localtime)


def _zones(crontab: str) -> dict[str, str]:
    """Each entry line (not ours) -> the CRON_TZ cronie fires it on, read the simple way: the
    last ``CRON_TZ=`` line above it ("" for none)."""
    zone, zones = "", {}
    for line in crontab.splitlines():
        if line.startswith("CRON_TZ="):
            zone = line.removeprefix("CRON_TZ=")
        elif line[:1].isdigit() and "skillopt_sleep" not in line:
            zones[line] = zone
    return zones


def test_a_block_added_below_a_cron_tz_goes_above_it_and_every_entry_keeps_its_zone(
    project: Path, tmp_path: Path, system_new_york: str
) -> None:
    fake = FakeOS(crontab=USERS)
    record = install_schedule(project, "03:17", host=_host(fake, tmp_path, system_new_york))
    assert fake.crontab is not None
    assert block_zone(fake.crontab, record.key) == ""  # ours fires on the system clock
    begin = BEGIN.format(key=record.key)
    assert fake.crontab.startswith(f"MAILTO=dev@example.com\n{begin}\n")  # after MAILTO
    assert "CRON_TZ" not in fake.crontab.split("CRON_TZ=UTC\n")[0]  # we wrote no zone line
    assert (
        _zones(fake.crontab)
        == _zones(USERS)
        == {
            "0 9 * * * /usr/bin/report": "UTC",
            "30 2 * * 1 backup": "UTC",
        }
    )
    later = fake.crontab + "15 4 * * * added-later\n"  # a line the user adds below us later
    assert _zones(later)["15 4 * * * added-later"] == "UTC"
    remove_schedule(project, host=_host(fake, tmp_path, system_new_york))
    assert fake.crontab == USERS  # byte for byte


@pytest.mark.parametrize(
    "users",
    [
        "CRON_TZ=UTC\n0 9 * * * report\n",  # the zone on the first line: ours goes on top
        "CRON_TZ=Asia/Tokyo\n0 1 * * * a\nCRON_TZ = 'UTC'  \r\n0 2 * * * b\n0 3 * * * c",
        '# mine\n\tCRON_TZ="America/Chicago"\n0 9 * * * report\r\n',
    ],
)
def test_unschedule_restores_any_crontab_with_a_cron_tz_byte_for_byte(
    project: Path, tmp_path: Path, system_new_york: str, users: str
) -> None:
    fake = FakeOS(crontab=users)
    linux = _host(fake, tmp_path, system_new_york)
    record = install_schedule(project, "03:17", host=linux)
    install_schedule(project, "04:05", host=linux)  # again: replaced, still unaffected
    assert fake.crontab is not None and block_zone(fake.crontab, record.key) == ""
    assert fake.crontab.count(BEGIN.format(key=record.key)) == 1
    remove_schedule(project, host=linux)
    assert fake.crontab == users


@pytest.mark.parametrize(
    "users",
    [
        "MAILTO=dev@example.com\n0 9 * * * report\n",
        "CRON_TZ=UTC\n0 9 * * * report\nCRON_TZ=\n",  # set back to cron's own zone
        "TZ=UTC\n0 9 * * * report\n",  # TZ only reaches the jobs' environment
        "# CRON_TZ=UTC\n0 9 * * * report",  # a comment; and no final newline
        "",
    ],
)
def test_without_a_cron_tz_in_effect_the_output_is_what_it_always_was(
    project: Path, tmp_path: Path, system_new_york: str, users: str
) -> None:
    fake = FakeOS(crontab=users)
    linux = _host(fake, tmp_path, system_new_york)
    install_schedule(project, "03:17", host=linux)
    entry = build_entry(project, DailyTime(3, 17), files=ScheduleFiles.for_project(project))
    joint = "\n" if users and not users.endswith("\n") else ""
    block = cron_block(entry)
    assert fake.crontab == users + joint + (block.removesuffix("\n") if joint else block)
    remove_schedule(project, host=linux)
    assert fake.crontab == users


def test_a_block_with_a_cron_tz_only_below_it_is_replaced_where_it_stands(
    project: Path, tmp_path: Path, system_new_york: str
) -> None:
    fake = FakeOS(crontab="0 1 * * * a\n")
    linux = _host(fake, tmp_path, system_new_york)
    install_schedule(project, "03:17", host=linux)
    assert fake.crontab is not None
    fake.crontab += "CRON_TZ=UTC\n0 2 * * * b\n"
    install_schedule(project, "04:05", host=linux)
    entry = build_entry(project, DailyTime(4, 5), files=ScheduleFiles.for_project(project))
    assert fake.crontab == f"0 1 * * * a\n{cron_block(entry)}CRON_TZ=UTC\n0 2 * * * b\n"


def _old_entry_under_utc(project: Path, fake: FakeOS, linux: Host) -> str:
    """Our block as an older version left it: appended below the user's ``CRON_TZ=UTC``."""
    record = install_schedule(project, "03:17", ["--target", "mock"], host=linux)
    assert fake.crontab is not None
    fake.crontab = "CRON_TZ=UTC\n0 9 * * * report\n" + fake.crontab
    return record.key


def test_status_and_doctor_report_an_old_entry_under_a_foreign_cron_tz_and_the_fix_works(
    project: Path, tmp_path: Path, system_new_york: str
) -> None:
    fake = FakeOS(crontab="")
    linux = _host(fake, tmp_path, system_new_york)
    key = _old_entry_under_utc(project, fake, linux)
    info = schedule_info(project, now=NOW, host=linux)
    (problem,) = info["problems"]
    assert "CRON_TZ=UTC" in problem["detail"]
    # 03:17 UTC is 22:17 the evening before in New York: the night ran mid-evening
    assert f"03:17 UTC time (22:17 {NEW_YORK} time)" in problem["detail"]
    assert f"not at 03:17 {NEW_YORK} time as shown" in problem["detail"]
    assert f"skillopt-sleep schedule -p '{project}' --at 03:17 --target mock" in problem["fix"]
    failing = [c for c in schedule_checks(info) if c.level == "fail"]
    assert [(c.detail, c.hint) for c in failing] == [(problem["detail"], problem["fix"])]

    install_schedule(project, "03:17", ["--target", "mock"], host=linux)  # the fix
    assert fake.crontab is not None and block_zone(fake.crontab, key) == ""
    assert _zones(fake.crontab) == {"0 9 * * * report": "UTC"}
    assert schedule_info(project, now=NOW, host=linux)["problems"] == []
    remove_schedule(project, host=linux)
    assert fake.crontab == "CRON_TZ=UTC\n0 9 * * * report\n"


def test_an_unrecorded_entry_under_a_foreign_cron_tz_is_reported_too(
    project: Path, tmp_path: Path, system_new_york: str
) -> None:
    fake = FakeOS(crontab="")
    linux = _host(fake, tmp_path, system_new_york)
    _old_entry_under_utc(project, fake, linux)
    ScheduleFiles.for_project(project).record.unlink()
    info = schedule_info(project, now=NOW, host=linux)
    assert (info["installed"], info["recorded"]) == (True, False)
    (problem,) = info["problems"]
    assert "CRON_TZ=UTC" in problem["detail"] and "schedule --at 03:17" in problem["fix"]


@pytest.mark.parametrize(
    "zone", [NEW_YORK, f":{NEW_YORK}", "", "US/Eastern"]
)  # an alias: one clock
def test_a_cron_tz_naming_the_system_zone_or_none_is_no_problem(
    project: Path, tmp_path: Path, system_new_york: str, zone: str
) -> None:
    fake = FakeOS(crontab="")
    linux = _host(fake, tmp_path, system_new_york)
    install_schedule(project, "03:17", host=linux)
    assert fake.crontab is not None
    fake.crontab = f"CRON_TZ={zone}\n" + fake.crontab
    assert schedule_info(project, now=NOW, host=linux)["problems"] == []


def test_status_stays_quiet_when_the_crontab_cannot_be_read(
    project: Path, tmp_path: Path, system_new_york: str
) -> None:
    from skillopt_sleep.schedule import Completed

    fake = FakeOS(crontab="")
    linux = _host(fake, tmp_path, system_new_york)
    _old_entry_under_utc(project, fake, linux)
    fake.fail["-l"] = Completed(1, "", "crontab: cannot open your crontab\n")
    assert schedule_info(project, now=NOW, host=linux)["problems"] == []


@pytest.mark.skipif(platform_family() != "linux", reason="status asks cron on this platform")
def test_the_status_command_shows_the_problem_and_its_fix(
    project: Path, tmp_path: Path, fake_scheduler: StandIns, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    install_schedule(project, "03:17", host=Host("linux", run_command, str(tmp_path), 501))
    table = fake_scheduler.crontab
    table.write_text("CRON_TZ=Pacific/Kiritimati\n" + table.read_text())
    cli = CliRunner()
    shown = cli.invoke(app, ["status", "-p", str(project)])
    assert shown.exit_code == 0, shown.output
    assert "CRON_TZ=Pacific/Kiritimati" in shown.stdout
    assert f"skillopt-sleep schedule -p {project} --at 03:17" in shown.stdout.replace("'", "")
    info = json.loads(cli.invoke(app, ["status", "-p", str(project), "--json"]).stdout)
    assert "CRON_TZ=Pacific/Kiritimati" in info["schedule"]["problems"][0]["detail"]


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("CRON_TZ=UTC\n", "UTC"),
        ("  CRON_TZ = America/New_York \r\n", NEW_YORK),
        ("\"CRON_TZ\"='Asia/Tokyo'  ", "Asia/Tokyo"),
        ("CRON_TZ=", ""),
        ('CRON_TZ="UTC" trailing', None),  # not a setting for cron
        ("# CRON_TZ=UTC", None),
        ("17 3 * * * CRON_TZ=UTC cmd", None),
        ("TZ=UTC", None),
        ("CRON_TZX=UTC", None),
    ],
)
def test_cron_tz_lines_are_read_as_cron_reads_them(line: str, value: str | None) -> None:
    assert zone_setting(line) == value
