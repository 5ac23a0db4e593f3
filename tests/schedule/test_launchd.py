"""The launchd agent: the plist parsed back with plistlib, and the launchctl calls."""

from __future__ import annotations

import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    shell, flag, command = data["ProgramArguments"]  # the command cron runs (test below)
    assert (shell, flag) == ("/bin/sh", "-c")
    python = "/Users/dev/.venv/bin/python"
    night = shlex.join(
        [python, "-m", "skillopt_sleep", "run", "--project", root, "--target", "claude-cli"]
    )
    assert f"; cd {shlex.quote(root)} || exit 66; " in command
    assert "PATH=/opt/homebrew/bin:/usr/bin " in command and f" {night} >> " in command
    assert "OPENAI_API_KEY" not in command and "sk-secret" not in command  # never captured
    assert data["StartCalendarInterval"] == {"Hour": 3, "Minute": 17}
    assert data["StandardOutPath"] == data["StandardErrorPath"] == record.log
    assert record.log.endswith("logs/night.log") and Path(record.log).parent.is_dir()
    assert "WorkingDirectory" not in data and "EnvironmentVariables" not in data
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
    from skillopt_sleep.schedule import ScheduleError

    fake = FakeOS(fail={"bootstrap": Completed(5, "", "Bootstrap failed: 5: Input/output error")})
    with pytest.raises(ScheduleError, match="Input/output error"):
        install_schedule(project, "03:17", host=host("darwin", fake, tmp_path))


def _launchd_runs(plist: Path) -> subprocess.CompletedProcess[str]:
    """What launchd runs for the agent: its ProgramArguments, with launchd's bare PATH, from /."""
    data = plistlib.loads(plist.read_bytes())
    assert "WorkingDirectory" not in data
    return subprocess.run(
        data["ProgramArguments"],
        env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": os.environ["HOME"]},  # isolated
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not Path("/bin/sh").exists(), reason="runs the agent's /bin/sh command")
def test_the_agent_runs_a_night_and_says_in_its_log_when_engine_or_project_is_gone(
    project: Path, engine: Path, tmp_path: Path
) -> None:
    """It named the engine directly: a moved venv was launchd's silent spawn failure, and a
    renamed project (its WorkingDirectory) stopped the job before anything could write a line."""
    profile = ["--backend", "mock", "--embedder", "tfidf"]
    record = install_schedule(
        project, "03:17", profile, host=host("darwin", FakeOS(), tmp_path / "home"),
        interpreter=str(engine),
    )  # fmt: skip
    plist = Path(record.artifacts["plist"])
    log = Path(record.log)
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ skillopt-sleep: "

    ran = _launchd_runs(plist)
    assert ran.returncode == 0, log.read_text()
    assert "nothing new" in log.read_text()
    assert oct(log.stat().st_mode & 0o777) == "0o600"

    moved = project.with_name("renamed project")
    project.rename(moved)
    log.write_text("")
    ran = _launchd_runs(plist)
    assert ran.returncode == 66 and ran.stderr == ""
    said = f"the project {project.resolve()} of the nightly schedule is gone"
    assert re.match(stamp + re.escape(said), log.read_text()), log.read_text()
    moved.rename(project)

    shutil.rmtree(engine.parent.parent)
    log.write_text("")
    ran = _launchd_runs(plist)
    assert ran.returncode == 127 and ran.stderr == ""
    said = f"the engine {engine} of the nightly schedule is gone (moved or deleted); fix: run "
    assert re.match(stamp + re.escape(said), log.read_text()), log.read_text()
