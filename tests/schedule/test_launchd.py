"""The launchd agent: the plist parsed back with plistlib, and the launchctl calls."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

from skillopt_sleep.schedule import Completed, install_schedule, remove_schedule, schedule_info
from skillopt_sleep.schedule.launchd import label
from tests.schedule.conftest import FakeOS, host


def test_plist_runs_the_interpreter_daily_with_path_and_log(project: Path, tmp_path: Path) -> None:
    fake = FakeOS()
    home = tmp_path / "home"
    mac = host("darwin", fake, home)
    environ = {"PATH": "/opt/homebrew/bin:/usr/bin", "OPENAI_API_KEY": "sk-secret"}
    record = install_schedule(
        project,
        "03:17",
        ["--target", "claude-cli"],
        host=mac,
        interpreter="/Users/dev/.venv/bin/python",
        environ=environ,
    )
    plist = home / "Library" / "LaunchAgents" / f"{label(record.key)}.plist"
    assert record.artifacts == {"plist": str(plist), "label": label(record.key)}
    data = plistlib.loads(plist.read_bytes())
    root = str(project.resolve())
    assert data["Label"] == f"io.skillopt.sleep.{record.key}"
    assert data["ProgramArguments"] == [
        "/Users/dev/.venv/bin/python",
        "-m",
        "skillopt_sleep",
        "run",
        "--project",
        root,
        "--target",
        "claude-cli",
    ]
    assert data["StartCalendarInterval"] == {"Hour": 3, "Minute": 17}
    assert data["EnvironmentVariables"]["PATH"] == "/opt/homebrew/bin:/usr/bin"
    assert "OPENAI_API_KEY" not in data["EnvironmentVariables"]  # secrets never captured
    assert data["StandardOutPath"] == data["StandardErrorPath"] == record.log
    assert record.log.endswith("logs/night.log") and Path(record.log).parent.is_dir()
    assert data["WorkingDirectory"] == root
    assert data["RunAtLoad"] is False
    assert fake.calls == [
        ["launchctl", "bootout", f"gui/501/{label(record.key)}"],
        ["launchctl", "bootstrap", "gui/501", str(plist)],
    ]
    assert oct(plist.stat().st_mode & 0o777) == "0o644"
    if sys.platform != "darwin":  # schedule_info reads the record, whatever the host
        assert schedule_info(project)["kind"] == "launchd"
    assert schedule_info(project)["installed"] is True


def test_rescheduling_replaces_the_one_agent_and_unschedule_removes_it(
    project: Path, tmp_path: Path
) -> None:
    fake = FakeOS()
    home = tmp_path / "home"
    mac = host("darwin", fake, home)
    install_schedule(project, "03:17", host=mac)
    record = install_schedule(project, "05:30", host=mac)
    agents = list((home / "Library" / "LaunchAgents").iterdir())
    assert len(agents) == 1
    assert plistlib.loads(agents[0].read_bytes())["StartCalendarInterval"] == {
        "Hour": 5,
        "Minute": 30,
    }
    fake.calls.clear()
    removal = remove_schedule(project, host=mac)
    assert fake.calls == [["launchctl", "bootout", f"gui/501/{label(record.key)}"]]
    assert not agents[0].exists()
    assert removal.removed == (f"launchd agent {label(record.key)}", str(agents[0]))
    assert schedule_info(project)["installed"] is False


def test_a_refused_bootstrap_is_an_error(project: Path, tmp_path: Path) -> None:
    import pytest

    from skillopt_sleep.schedule import ScheduleError

    fake = FakeOS(fail={"bootstrap": Completed(5, "", "Bootstrap failed: 5: Input/output error")})
    with pytest.raises(ScheduleError, match="Input/output error"):
        install_schedule(project, "03:17", host=host("darwin", fake, tmp_path))
