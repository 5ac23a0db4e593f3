"""`doctor` on a schedule ``status`` cannot take at its word: a crontab entry left firing after
the state dir (and the record in it) was deleted, or a damaged record. Neither is "ok" nor "not
scheduled": each is a warning with the way out. The real crontab is never run: the suite's fake
one (``fake_scheduler``) is first on PATH."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.install import Homes
from skillopt_sleep.install.doctor import project_checks
from skillopt_sleep.paths import state_dir
from skillopt_sleep.schedule import Host, ScheduleFiles, install_schedule, platform_family
from skillopt_sleep.schedule.runner import run_command
from tests._guard import StandIns

pytestmark = pytest.mark.skipif(
    platform_family() != "linux", reason="status asks cron for an unrecorded entry on Linux"
)


@pytest.fixture
def project(tmp_path: Path, homes: Homes, fake_scheduler: StandIns) -> Path:
    """A project with a crontab entry (in the fake crontab first on PATH)."""
    root = tmp_path / "proj"
    root.mkdir()
    install_schedule(root, "03:17", host=Host("linux", run_command, str(homes.home), 501))
    return root


def _schedule(project: Path) -> tuple[str, str, str]:
    (check,) = [c for c in project_checks(project) if c.name == "schedule"]
    return check.level, check.detail, check.hint


def test_an_entry_with_no_record_is_a_warning_with_the_note_and_the_fix(project: Path) -> None:
    assert _schedule(project)[0] == "ok"  # recorded: as before
    shutil.rmtree(state_dir())  # `rm -rf` of the state dir; the crontab keeps the line
    level, detail, hint = _schedule(project)
    files = ScheduleFiles.for_project(project)
    assert level == "warn", detail
    assert detail.startswith(f"scheduled (entry found in crontab, no record in {files.state_dir})")
    assert "03:17" in detail
    assert hint.startswith("`skillopt-sleep unschedule` removes the entry")

    shown = CliRunner().invoke(app, ["doctor", "-p", str(project)], env={"COLUMNS": "400"})
    lines = shown.stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("[warn] schedule: ")]
    assert "no record in" in lines[at] and "unschedule" in lines[at + 1], shown.stdout


def test_a_damaged_record_is_a_warning_not_not_scheduled(project: Path) -> None:
    ScheduleFiles.for_project(project).record.write_text("{not json")
    level, detail, hint = _schedule(project)
    assert level == "warn" and "damaged" in detail, detail
    assert "remove the OS entry by hand" in hint
