"""What `install_schedule` records and `schedule_info` reports (the part `status` shows)."""

from __future__ import annotations

import json
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine.config import user_config_path
from skillopt_sleep.schedule import (
    DailyTime,
    ScheduleFiles,
    build_entry,
    install_schedule,
    platform_family,
    remove_schedule,
    schedule_info,
)
from tests.schedule.conftest import FakeOS, host


def test_files_are_the_engine_state_paths(project: Path) -> None:
    from skillopt_sleep.engine.state import LOG_FILE, ProjectState

    state = ProjectState(project)
    files = ScheduleFiles.for_project(project)
    assert files.record == state.schedule_path
    assert files.logs_dir == state.logs_dir
    assert files.log.parent == state.logs_dir
    assert files.log == state.logs_dir / LOG_FILE


def test_entry_is_absolute_and_captures_path_and_state_locations_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)
    environ = {
        "PATH": "/home/dev/.npm-global/bin:/usr/bin",
        "SKILLOPT_SLEEP_HOME": "/data/sleep",
        "CLAUDE_CONFIG_DIR": "/home/dev/.claude-work",
        "ANTHROPIC_API_KEY": "sk-ant-secret",
        "HOME": "/home/dev",
    }
    entry = build_entry(Path(project.name), DailyTime(3, 17), ["--judge", ""], environ=environ)
    assert entry.project == str(project.resolve())
    assert entry.argv[0] == sys.executable and Path(entry.argv[0]).is_absolute()
    assert entry.argv[1:] == (
        "-m",
        "skillopt_sleep",
        "run",
        "--project",
        entry.project,
        "--judge",
        "",
    )
    assert entry.env == {
        "PATH": "/home/dev/.npm-global/bin:/usr/bin",
        "SKILLOPT_SLEEP_HOME": "/data/sleep",
        "SKILLOPT_SLEEP_CONFIG": str(user_config_path()),  # always written, resolved
        "CLAUDE_CONFIG_DIR": "/home/dev/.claude-work",
    }


def test_a_line_break_in_an_argument_is_refused(project: Path) -> None:
    with pytest.raises(UsageError, match="line break"):
        build_entry(project, DailyTime(3, 17), ["--target", "mock\n* * * * * evil"], environ={})


def test_record_and_info(project: Path, tmp_path: Path) -> None:
    fake = FakeOS()
    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    record = install_schedule(
        project, "03:17", ["--backend", "mock"], host=host("linux", fake, tmp_path), now=now
    )
    files = ScheduleFiles.for_project(project)
    saved = json.loads(files.record.read_text())
    assert saved["kind"] == "cron" and saved["at"] == "03:17"
    assert saved["argv"] == list(record.argv) and saved["argv"][-2:] == ["--backend", "mock"]
    assert saved["installed_at"] == now.isoformat()
    assert oct(files.record.stat().st_mode & 0o777) == "0o600"
    info = schedule_info(project, now=now)
    assert info["installed"] is True
    assert info["kind"] == "cron" and info["platform"] == "linux"
    assert info["at"] == "03:17"
    assert info["next_run"].endswith("Z")
    next_run = datetime.fromisoformat(info["next_run"].replace("Z", "+00:00"))
    assert now < next_run <= datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
    assert shlex.split(info["command"]) == saved["argv"]
    assert info["log"] == str(files.log)
    remove_schedule(project, host=host("linux", fake, tmp_path))
    assert not files.record.exists()
    gone = schedule_info(project)
    assert gone["installed"] is False and gone["next_run"] is None
    assert gone["kind"] in ("cron", "launchd", "schtasks")


def test_schedule_info_imports_nothing_heavy(project: Path) -> None:
    import subprocess

    code = (
        "import sys;"
        "from skillopt_sleep.schedule import schedule_info;"
        f"schedule_info({str(project)!r});"
        "heavy = [m for m in ('pydantic', 'numpy', 'torch', 'apscheduler', 'watchdog',"
        " 'skillopt_sleep.engine', 'skillopt_sleep.harvest') if m in sys.modules];"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_platform_families() -> None:
    assert platform_family("linux") == "linux"
    assert platform_family("freebsd14") == "linux"
    assert platform_family("darwin") == "darwin"
    assert platform_family("win32") == "win32"
    assert platform_family("cygwin") == "win32"


def test_switching_platform_removes_the_previous_entry(project: Path, tmp_path: Path) -> None:
    fake = FakeOS(crontab="0 1 * * * mine\n")
    install_schedule(project, "03:17", host=host("linux", fake, tmp_path))
    install_schedule(project, "03:17", host=host("darwin", fake, tmp_path / "home"))
    assert fake.crontab == "0 1 * * * mine\n"


def test_a_damaged_record_does_not_break_status(project: Path) -> None:
    files = ScheduleFiles.for_project(project)
    files.record.parent.mkdir(parents=True)
    files.record.write_text("{not json")
    info = schedule_info(project)
    assert info["installed"] is False and "damaged" in info["error"]


def test_unscheduling_where_no_crontab_program_exists_finds_nothing_to_remove(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a CLI probe: with nothing scheduled and no `crontab` installed, `unschedule`
    failed (exit 1, "crontab is not installed") instead of finding nothing to remove."""
    from skillopt_sleep.schedule.install import Host
    from skillopt_sleep.schedule.runner import ScheduleError, run_command

    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    linux = Host("linux", run_command, str(tmp_path), 0)
    removal = remove_schedule(project, host=linux)
    assert removal.removed == () and removal.record is None
    with pytest.raises(ScheduleError, match="crontab is not installed"):
        install_schedule(project, "03:17", host=linux)
