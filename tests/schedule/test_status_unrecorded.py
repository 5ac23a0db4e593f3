"""``status`` asks the OS scheduler when ``schedule.json`` is gone: a deleted state directory
leaves the entry firing every night, and "not scheduled" would be wrong.

The real ``crontab`` is never run: ``status`` finds the fake one on PATH (see conftest), and the
per-platform lookups get a fake host.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.paths import state_dir
from skillopt_sleep.schedule import (
    Completed,
    Host,
    ScheduleError,
    ScheduleFiles,
    install_schedule,
    platform_family,
    schedule_info,
)
from skillopt_sleep.schedule.runner import run_command
from tests.schedule.conftest import FakeOS, host


@pytest.mark.skipif(platform_family() != "linux", reason="status asks cron on this platform")
def test_status_reports_a_crontab_entry_whose_state_dir_was_deleted(
    project: Path, tmp_path: Path, fake_crontab: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    install_schedule(project, "04:05", host=Host("linux", run_command, str(tmp_path), 501))
    shutil.rmtree(state_dir())  # `rm -rf` of SKILLOPT_SLEEP_HOME; the crontab keeps the line
    files = ScheduleFiles.for_project(project)
    cli = CliRunner()

    shown = cli.invoke(app, ["status", "-p", str(project)])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("schedule:"))
    assert lines[at] == (
        f"schedule: scheduled (entry found in crontab, no record in {files.state_dir})"
    )
    assert lines[at + 1].startswith("  fix: `skillopt-sleep unschedule` removes the entry; ")
    info = json.loads(cli.invoke(app, ["status", "-p", str(project), "--json"]).stdout)
    schedule = info["schedule"]
    assert (schedule["installed"], schedule["recorded"]) == (True, False)
    assert (schedule["found"], schedule["kind"], schedule["at"]) == ("crontab", "cron", "04:05")

    assert cli.invoke(app, ["unschedule", "-p", str(project)]).exit_code == 0  # the fix works
    assert "skillopt-sleep" not in fake_crontab.read_text()
    gone = cli.invoke(app, ["status", "-p", str(project)]).stdout
    assert "schedule: not scheduled" in gone


def test_each_scheduler_is_asked_for_an_unrecorded_entry(project: Path, tmp_path: Path) -> None:
    files = ScheduleFiles.for_project(project)
    for platform in ("linux", "darwin"):
        fake = FakeOS()
        install_schedule(project, "03:17", host=host(platform, fake, tmp_path / platform))
        files.record.unlink()
        info = schedule_info(project, host=host(platform, fake, tmp_path / platform))
        assert (info["installed"], info["recorded"], info["at"]) == (True, False, "03:17")
        assert info["next_run"].endswith("Z")
    assert info["found"].startswith("launchd agent ") and info["found"].endswith(".plist")

    task = f"\\SkillOpt-Sleep\\{files.key}"
    windows = FakeOS()
    info = schedule_info(project, host=host("win32", windows, tmp_path))
    assert windows.calls == [["schtasks", "/Query", "/TN", task]]
    assert info["found"] == f"Task Scheduler task {task}" and info["at"] is None
    windows.fail["/Query"] = Completed(1, "", "ERROR: The system cannot find the file specified.")
    assert schedule_info(project, host=host("win32", windows, tmp_path))["installed"] is False


def test_no_entry_or_no_scheduler_to_ask_is_not_scheduled(project: Path, tmp_path: Path) -> None:
    others = FakeOS(crontab="0 1 * * * /usr/bin/backup\n")
    info = schedule_info(project, host=host("linux", others, tmp_path))
    assert (info["installed"], info["recorded"]) == (False, False) and "note" not in info

    def no_crontab(argv: object, stdin: object = None) -> Completed:
        raise ScheduleError("crontab is not installed or not on PATH")

    bare = Host("linux", no_crontab, str(tmp_path), 501)
    assert schedule_info(project, host=bare)["installed"] is False
