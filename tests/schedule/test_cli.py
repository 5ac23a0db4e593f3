"""`skillopt-sleep schedule / unschedule` through the CLI, on a fake host."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.cli.schedule import profile_args
from tests.schedule.conftest import FakeOS, host


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeOS:
    fake_os = FakeOS(crontab="0 0 * * * other\n")
    monkeypatch.setattr(
        "skillopt_sleep.cli.schedule._host", lambda: host("linux", fake_os, tmp_path / "home")
    )
    return fake_os


def test_schedule_saves_the_profile_and_prints_json(
    fake: FakeOS, project: Path, tmp_path: Path
) -> None:
    claude = tmp_path / "claude home"
    result = CliRunner().invoke(
        app,
        [
            "schedule",
            "--project",
            str(project),
            "--at",
            "2:30",
            "--target",
            "claude-cli",
            "--optimizer",
            "mock",
            "--source",
            "claude,codex",
            "--max-usd",
            "1.5",
            "--no-memory",
            "--claude-home",
            str(claude),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["installed"] is True and info["at"] == "02:30" and info["kind"] == "cron"
    argv = shlex.split(info["command"])
    assert argv[1:6] == ["-m", "skillopt_sleep", "run", "--project", str(project.resolve())]
    profile = argv[6:]
    assert profile == [
        "--optimizer",
        "mock",
        "--target",
        "claude-cli",
        "--source",
        "claude,codex",
        "--max-usd",
        "1.5",
        "--no-memory",
        "--claude-home",
        str(claude.resolve()),
    ]
    assert fake.crontab is not None and fake.crontab.startswith("0 0 * * * other\n")
    assert "30 2 * * * " in fake.crontab


def test_the_saved_profile_is_accepted_by_run(project: Path) -> None:
    """Every flag `schedule` saves is one `run` parses (run --help lists it)."""
    flags = {
        "backend": "mock",
        "optimizer": "mock",
        "target": "mock",
        "judge": "",
        "sources": "all",
        "max_calls": 3,
        "max_usd": 1.0,
        "max_tasks": 2,
        "samples": 1,
        "embedder": "tfidf",
        "memory": True,
        "auto_adopt": False,
        "claude_home": project,
        "codex_home": project,
        "copilot_home": project,
        "vscode_home": project,
    }
    help_text = CliRunner().invoke(app, ["run", "--help"], terminal_width=200).stdout
    for arg in profile_args(flags):
        if arg.startswith("--"):
            assert arg in help_text, arg


def test_default_time_comes_from_the_config(fake: FakeOS, project: Path) -> None:
    config = project / ".skillopt-sleep" / "config.toml"
    config.parent.mkdir()
    config.write_text('[schedule]\nat = "04:45"\n')
    result = CliRunner().invoke(app, ["schedule", "--project", str(project), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["at"] == "04:45"


@pytest.mark.parametrize("at", ["25:00", "7", "12:99"])
def test_a_bad_time_is_a_usage_error_and_touches_nothing(
    fake: FakeOS, project: Path, at: str
) -> None:
    result = CliRunner().invoke(app, ["schedule", "--project", str(project), "--at", at])
    assert result.exit_code == 2
    assert "not a time of day" in result.stderr
    assert fake.calls == []


def test_a_bad_profile_is_a_usage_error_now_not_at_night(fake: FakeOS, project: Path) -> None:
    result = CliRunner().invoke(app, ["schedule", "--project", str(project), "--samples", "0"])
    assert result.exit_code == 2, result.output
    assert fake.calls == []


def test_rescheduling_replaces_and_unschedule_restores(fake: FakeOS, project: Path) -> None:
    runner = CliRunner()
    for at in ("03:17", "03:18"):
        assert runner.invoke(app, ["schedule", "-p", str(project), "--at", at]).exit_code == 0
    assert fake.crontab is not None and fake.crontab.count(">>> skillopt-sleep") == 1
    result = runner.invoke(app, ["unschedule", "-p", str(project), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["removed"]
    assert fake.crontab == "0 0 * * * other\n"
    again = runner.invoke(app, ["unschedule", "-p", str(project)])
    assert again.exit_code == 0 and "nothing was scheduled" in again.stdout


def test_python_dash_m_runs_the_cli(project: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "schedule", "--at", "25:00", "-p", str(project)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "not a time of day" in out.stderr


@pytest.mark.parametrize(
    ("platform", "expect"),
    [
        ("linux", "17 3 * * * "),
        ("darwin", "<key>StartCalendarInterval</key>"),
        ("win32", "/SC DAILY"),
    ],
)
def test_print_shows_the_entry_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, project: Path, platform: str, expect: str
) -> None:
    from skillopt_sleep.schedule import ScheduleFiles

    fake_os = FakeOS(crontab="0 0 * * * other\n")
    monkeypatch.setattr(
        "skillopt_sleep.cli.schedule._host", lambda: host(platform, fake_os, tmp_path / "home")
    )
    result = CliRunner().invoke(
        app, ["schedule", "-p", str(project), "--at", "03:17", "--target", "mock", "--print"]
    )
    assert result.exit_code == 0, result.output
    assert expect in result.stdout and "--target" in result.stdout
    assert fake_os.calls == [] and fake_os.crontab == "0 0 * * * other\n"
    assert not ScheduleFiles.for_project(project).record.exists()
    assert not (tmp_path / "home").exists()


def test_a_repeated_source_is_kept_whole(project: Path, fake: FakeOS) -> None:
    """`--source claude --source codex` kept only the last one (a single-value option)."""
    args = ["schedule", "--project", str(project), "--source", "claude", "--source", "codex"]
    result = CliRunner().invoke(app, [*args, "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    assert "run --project" in json.loads(result.stdout)["entry"]
    assert " --source claude,codex " in json.loads(result.stdout)["entry"]
