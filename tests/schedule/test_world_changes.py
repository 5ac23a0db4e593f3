"""The nightly entry after the world changed under it: the engine moved, the project renamed, the
state dir deleted or unwritable. Each runs exactly the command the crontab holds (cron's minimal
PATH, /bin/sh) and asks: is there a trace the user can find in the log, do `status` and `doctor`
say so with the way out, and does `schedule` again repair it. The crontab is the suite's fake."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.paths import state_dir
from skillopt_sleep.schedule import Host, ScheduleFiles, install_schedule, platform_family
from skillopt_sleep.schedule.cron import NOTE
from skillopt_sleep.schedule.runner import run_command

pytestmark = pytest.mark.skipif(platform_family() != "linux", reason="runs the cron entry")
PROFILE = ["--backend", "mock", "--embedder", "tfidf"]
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})


@pytest.fixture
def scheduled(project: Path, engine: Path, tmp_path: Path) -> Path:
    install_schedule(
        project,
        "03:17",
        PROFILE,
        host=Host("linux", run_command, str(tmp_path / "home"), os.getuid()),
        interpreter=str(engine),
    )
    return project


def _cron_runs(crontab: Path) -> subprocess.CompletedProcess[str]:
    """What cron runs for our entry: the command after the five time fields, ``\\%`` -> ``%``,
    with cron's PATH and nothing else (every night is in the environment the line sets)."""
    lines = crontab.read_text().splitlines()
    line = lines[lines.index(NOTE) + 1]
    command = line.split(" ", 5)[5].replace("\\%", "%")
    return subprocess.run(
        ["/bin/sh", "-c", command],
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},  # the test's own home
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _log(project: Path) -> str:
    return ScheduleFiles.for_project(project).log.read_text()


def _problems(project: Path) -> list[dict[str, str]]:
    shown = _cli("status", "-p", str(project), "--json")
    assert shown.exit_code == 0, shown.output
    problems: list[dict[str, str]] = json.loads(shown.stdout)["schedule"]["problems"]
    return problems


def _doctor(project: Path) -> tuple[int, list[str]]:
    shown = _cli("doctor", "-p", str(project))
    lines = shown.stdout.splitlines()
    return shown.exit_code, [
        f"{line} | {lines[i + 1].strip()}" if i + 1 < len(lines) else line
        for i, line in enumerate(lines)
        if "schedule:" in line
    ]


def test_a_moved_engine_says_so_in_the_log_status_and_doctor_and_schedule_repairs_it(
    scheduled: Path, engine: Path, fake_crontab: Path
) -> None:
    shutil.rmtree(engine.parent.parent)  # the venv moved away
    ran = _cron_runs(fake_crontab)
    assert ran.returncode == 127 and ran.stderr == ""  # nothing mailed to nobody
    fix = f"run `skillopt-sleep schedule -p '{scheduled}' --at 03:17 {' '.join(PROFILE)}`"
    said = f"skillopt-sleep: the engine {engine} of the nightly schedule is gone (moved or deleted)"
    expected = f"{said}; fix: {fix} from the install you use now\n"
    assert re.fullmatch(STAMP + re.escape(expected), _log(scheduled)), _log(scheduled)

    (problem,) = _problems(scheduled)
    assert problem["detail"] == said.removeprefix("skillopt-sleep: ")
    assert problem["fix"].startswith(fix)
    text = _cli("status", "-p", str(scheduled)).stdout
    assert f"  problem: {problem['detail']}\n  fix: {problem['fix']}\n" in text
    code, lines = _doctor(scheduled)
    assert code == 1 and f"[FAIL] schedule: {problem['detail']} | fix: {problem['fix']}" in lines

    again = _cli("schedule", "-p", str(scheduled), "--at", "03:17", *PROFILE)  # the fix
    assert again.exit_code == 0, again.output
    assert str(engine) not in fake_crontab.read_text()
    assert _problems(scheduled) == []
    assert _cron_runs(fake_crontab).returncode == 0
    assert "nothing new" in _log(scheduled)


def test_an_engine_skillopt_sleep_was_uninstalled_from_says_so_in_the_log_status_and_doctor(
    scheduled: Path, engine: Path, fake_crontab: Path
) -> None:
    """The venv is still there but no longer holds us (``pip uninstall``): the entry's ``-x``
    check passed, every night died on ``No module named skillopt_sleep`` and status said ok."""
    engine.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')  # no site-packages: no us
    ran = _cron_runs(fake_crontab)
    assert ran.returncode == 127 and ran.stderr == ""
    said = (
        f"skillopt-sleep: the engine {engine} of the nightly schedule cannot import skillopt_sleep"
    )
    fix = f"run `skillopt-sleep schedule -p '{scheduled}' --at 03:17 {' '.join(PROFILE)}`"
    assert re.fullmatch(f"{STAMP}{re.escape(said)} .*{re.escape(fix)}.*\n", _log(scheduled))
    assert "No module named" not in _log(scheduled)

    (problem,) = _problems(scheduled)
    assert problem["detail"].startswith(said.removeprefix("skillopt-sleep: "))
    assert fix in problem["fix"]
    code, lines = _doctor(scheduled)
    assert code == 1 and f"[FAIL] schedule: {problem['detail']} | fix: {problem['fix']}" in lines

    engine.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')  # reinstalled
    assert _problems(scheduled) == []
    assert _cron_runs(fake_crontab).returncode == 0


def test_a_moved_project_says_so_in_the_log_and_doctor_finds_it_from_the_new_place(
    scheduled: Path, fake_crontab: Path
) -> None:
    moved = scheduled.with_name("renamed project")
    scheduled.rename(moved)
    ran = _cron_runs(fake_crontab)
    assert ran.returncode == 66 and ran.stderr == ""  # was: `cd` failed, only cron's mail knew
    said = f"skillopt-sleep: the project {scheduled} of the nightly schedule is gone"
    fix = f"fix: `skillopt-sleep unschedule -p '{scheduled}'`, then `skillopt-sleep schedule`"
    assert re.fullmatch(f"{STAMP}{re.escape(said)} .*; {re.escape(fix)} .*\n", _log(scheduled))

    _, lines = _doctor(moved)  # from the project's new place
    assert any(line.startswith(f"[warn] schedule: {said[16:]}") and fix in line for line in lines)
    assert _cli("unschedule", "-p", str(scheduled)).exit_code == 0  # the fix works
    assert "skillopt-sleep" not in fake_crontab.read_text()
    assert not [line for line in _doctor(moved)[1] if "gone" in line]


def test_a_deleted_state_dir_runs_a_night_and_status_says_the_record_is_gone(
    scheduled: Path, fake_crontab: Path
) -> None:
    shutil.rmtree(state_dir())
    ran = _cron_runs(fake_crontab)
    assert ran.returncode == 0, _log(scheduled)
    assert "nothing new" in _log(scheduled)  # the log folder was made again
    schedule = json.loads(_cli("status", "-p", str(scheduled), "--json").stdout)["schedule"]
    assert (schedule["installed"], schedule["recorded"]) == (True, False)
    assert _cli("schedule", "-p", str(scheduled), "--at", "03:17", *PROFILE).exit_code == 0
    schedule = json.loads(_cli("status", "-p", str(scheduled), "--json").stdout)["schedule"]
    assert (schedule["recorded"], schedule["problems"]) == (True, [])
    assert fake_crontab.read_text().count(NOTE) == 1  # replaced in place, not added


def test_a_log_folder_the_night_cannot_write_is_a_failure_in_status_and_doctor(
    scheduled: Path, fake_crontab: Path
) -> None:
    logs = ScheduleFiles.for_project(scheduled).logs_dir
    shutil.rmtree(logs)
    logs.write_text("")  # not a folder: the shell cannot open the log (as when read-only)
    assert _cron_runs(fake_crontab).returncode != 0  # no log can say so: only status can
    (problem,) = _problems(scheduled)
    assert problem["detail"].startswith("the nightly schedule cannot write its log")
    assert f"{logs} is not a folder" in problem["detail"]
    code, lines = _doctor(scheduled)
    assert code == 1 and any(line.startswith("[FAIL] schedule: the nightly") for line in lines)

    again = _cli("schedule", "-p", str(scheduled), "--at", "03:17", *PROFILE)
    assert again.exit_code == 1 and "Traceback" not in again.output  # was a NotADirectoryError
    assert f"error: cannot create the log folder {logs}" in again.stderr
    assert "fix: move aside the file in the way of the folder" in again.stderr
    logs.unlink()  # the fix
    assert _cli("schedule", "-p", str(scheduled), "--at", "03:17", *PROFILE).exit_code == 0
    assert _problems(scheduled) == []


def test_a_read_only_state_dir_is_a_failure_in_status(
    scheduled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests may run as root, whom chmod does not stop: access() answers as a read-only mount."""
    logs = ScheduleFiles.for_project(scheduled).logs_dir
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == logs else real(p, mode))
    (problem,) = _problems(scheduled)
    assert (
        f"{logs} is read-only" in problem["detail"] and "a folder you can write" in problem["fix"]
    )


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_schedule_on_a_full_or_read_only_disk_is_an_error_with_the_fix(
    project: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    import skillopt_sleep.schedule.install as installer

    def refuse(path: object) -> Path:
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(installer, "private_dir", refuse)
    result = _cli("schedule", "-p", str(project), "--at", "03:17", *PROFILE)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert os.strerror(code) in result.stderr
    hint = "free some disk space" if code == errno.ENOSPC else "SKILLOPT_SLEEP_HOME"
    assert hint in result.stderr


def test_another_venv_on_the_same_interpreter_without_us_is_a_problem(tmp_path: Path) -> None:
    """status compared the engine with its own interpreter through links: every venv's python
    links to the same base interpreter, so a venv skillopt-sleep was uninstalled from passed as
    "this engine" and was never asked whether it imports us."""
    import venv

    venv.create(tmp_path / "other venv", with_pip=False, symlinks=True)
    python = tmp_path / "other venv" / "bin" / "python"
    project = tmp_path / "proj"
    project.mkdir()
    argv = [str(python), "-m", "skillopt_sleep", "run", "--project", str(project)]
    from skillopt_sleep.schedule.health import problems

    (problem,) = problems(argv, str(project), "03:17", str(tmp_path / "logs" / "night.log"))
    assert problem.detail.startswith(f"the engine {python} of the nightly schedule cannot import")
