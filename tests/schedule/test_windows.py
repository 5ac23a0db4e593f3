"""The Windows task: schtasks argv, the quoting of paths with spaces, and the batch script."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule import (
    Completed,
    DailyTime,
    Entry,
    ScheduleError,
    install_schedule,
    remove_schedule,
)
from skillopt_sleep.schedule.windows import create_argv, delete_argv, script_text, task_name
from tests.schedule.conftest import FakeOS, host

SCRIPT = r"C:\Users\Ada Lovelace\AppData\Local\skillopt-sleep\projects\app-0123456789\run-night.cmd"


def _entry() -> Entry:
    return Entry(
        key="app-0123456789",
        project=r"C:\Users\Ada Lovelace\My Projects\app",
        at=DailyTime(3, 7),
        argv=(
            r"C:\Program Files\Python311\python.exe",
            "-m",
            "skillopt_sleep",
            "run",
            "--project",
            r"C:\Users\Ada Lovelace\My Projects\app",
            "--target",
            "claude-cli",
        ),
        environment=(("PATH", r"C:\Program Files\nodejs;%USERPROFILE%\bin"),),
        log=r"C:\Users\Ada Lovelace\AppData\Local\skillopt-sleep\logs\night.log",
        state_dir=r"C:\Users\Ada Lovelace\AppData\Local\skillopt-sleep",
    )


def test_schtasks_create_argv_and_its_command_line_quoting() -> None:
    argv = create_argv(_entry(), SCRIPT)
    assert argv == [
        "schtasks",
        "/Create",
        "/F",
        "/SC",
        "DAILY",
        "/ST",
        "03:07",
        "/TN",
        r"\SkillOpt-Sleep\app-0123456789",
        "/TR",
        f'"{SCRIPT}"',
    ]
    # how Python hands it to schtasks on Windows: the inner quotes escaped as \"
    line = subprocess.list2cmdline(argv)
    assert line.endswith(f'/TR "\\"{SCRIPT}\\""')
    assert len(argv[-1]) <= 261  # schtasks' /TR limit
    assert delete_argv("app-0123456789") == [
        "schtasks",
        "/Delete",
        "/F",
        "/TN",
        task_name("app-0123456789"),
    ]


def test_batch_script_quotes_every_value_and_doubles_percent() -> None:
    text = script_text(_entry())
    lines = text.split("\r\n")
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    assert lines[0] == "@echo off"
    assert r'set "PATH=C:\Program Files\nodejs;%%USERPROFILE%%\bin"' in lines
    assert r'cd /d "C:\Users\Ada Lovelace\My Projects\app"' in lines
    run = next(
        line for line in lines if line.startswith('"C:\\Program Files\\Python311\\python.exe" "-m"')
    )
    assert run == (
        r'"C:\Program Files\Python311\python.exe" "-m" "skillopt_sleep" "run" "--project" '
        r'"C:\Users\Ada Lovelace\My Projects\app" "--target" "claude-cli" '
        r'>> "C:\Users\Ada Lovelace\AppData\Local\skillopt-sleep\logs\night.log" 2>&1'
    )


def test_a_double_quote_cannot_be_scheduled_on_windows() -> None:
    entry = _entry()
    bad = Entry(**{**entry.__dict__, "argv": (*entry.argv, "--set", 'x="y"')})
    with pytest.raises(UsageError):
        script_text(bad)


def test_install_writes_the_script_and_creates_the_task_remove_deletes_both(
    project: Path, tmp_path: Path
) -> None:
    fake = FakeOS()
    win = host("win32", fake, tmp_path / "home")
    record = install_schedule(project, "03:17", ["--max-usd", "2"], host=win, environ={"PATH": "p"})
    script = Path(record.artifacts["script"])
    assert script.is_file() and script.name == "run-night.cmd"
    assert fake.calls == [create_argv_for(record.key, "03:17", str(script))]
    assert '"--max-usd" "2"' in script.read_text(encoding="utf-8")
    install_schedule(project, "03:17", host=win, environ={"PATH": "p"})
    assert all(call[:3] == ["schtasks", "/Create", "/F"] for call in fake.calls)  # /F replaces
    fake.calls.clear()
    removal = remove_schedule(project, host=win)
    assert fake.calls == [delete_argv(record.key)]
    assert not script.exists()
    assert removal.removed == (f"task {task_name(record.key)}", str(script))


def test_a_failed_delete_keeps_the_record_for_a_retry(project: Path, tmp_path: Path) -> None:
    fake = FakeOS()
    win = host("win32", fake, tmp_path)
    install_schedule(project, "03:17", host=win)
    fake.fail["/Delete"] = Completed(1, "", "ERROR: Access is denied.")
    with pytest.raises(ScheduleError, match="Access is denied"):
        remove_schedule(project, host=win)
    fake.fail["/Delete"] = Completed(1, "", "ERROR: The system cannot find the file specified.")
    assert remove_schedule(project, host=win).removed[-1].endswith("run-night.cmd")


def create_argv_for(key: str, at: str, script: str) -> list[str]:
    return [
        "schtasks",
        "/Create",
        "/F",
        "/SC",
        "DAILY",
        "/ST",
        at,
        "/TN",
        task_name(key),
        "/TR",
        f'"{script}"',
    ]


def test_the_script_says_in_the_log_when_its_engine_or_project_is_gone() -> None:
    lines = script_text(_entry()).split("\r\n")
    log = r'"C:\Users\Ada Lovelace\AppData\Local\skillopt-sleep\logs\night.log"'
    assert r'if not exist "C:\Program Files\Python311\python.exe" goto engine_gone' in lines
    assert r'if not exist "C:\Users\Ada Lovelace\My Projects\app\" goto project_gone' in lines
    said = lines[lines.index(":engine_gone") + 1]
    assert said.startswith(f">> {log} echo skillopt-sleep: the engine ")
    assert "^(moved or deleted^); fix: run `skillopt-sleep schedule -p" in said
    assert lines[lines.index(":project_gone") + 2] == "exit /b 66"
    check = lines[lines.index(r'cd /d "C:\Users\Ada Lovelace\My Projects\app"') + 1]
    assert check.startswith(r'"C:\Program Files\Python311\python.exe" -c "import importlib')
    assert check.endswith(" >nul 2>&1 || goto engine_without_us")  # in the project, as it runs
    said = lines[lines.index(":engine_without_us") + 1]
    assert said.startswith(f">> {log} echo skillopt-sleep: the engine ")
    assert "cannot import skillopt_sleep ^(uninstalled from it" in said
    assert lines[lines.index(":engine_without_us") + 2] == "exit /b 127"
