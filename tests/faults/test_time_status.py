"""What ``status`` says about the schedule's time when the record's time is damaged."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.schedule import ScheduleFiles, schedule_info
from skillopt_sleep.schedule.record import ScheduleRecord, write_record
from tests._guard import StandIns
from tests._isolation import isolate_sleep_state


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_scheduler: StandIns) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


@pytest.mark.parametrize("at", ["3am", "03:17:30", "24:00", ""])
def test_a_record_whose_time_is_damaged_is_a_problem_status_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    """``status`` ended with exit 2 and "--at '3am' is not a time of day; fix: give HH:MM" when
    nobody had given an --at: a schedule.json edited by hand (or by a later version)."""
    project = tmp_path / "project"
    project.mkdir()
    files = ScheduleFiles.for_project(project)
    record = ScheduleRecord(
        platform="linux",
        kind="cron",
        key=files.key,
        project=str(project),
        at=at,
        argv=("skillopt-sleep", "run"),
        environment=(),
        log=str(files.log),
        installed_at="2026-11-20T03:00:00Z",
        written=(("cron_block", files.key),),
    )
    write_record(files.record, record)
    info = schedule_info(project)
    assert info["recorded"] and info["next_run"] is None
    assert any("not a time of day" in p["detail"] for p in info["problems"]), info["problems"]
    monkeypatch.setenv("COLUMNS", "400")
    result = CliRunner().invoke(app, ["status", "-p", str(project)])
    assert result.exit_code == 0, result.output
    assert "is not a time of day (HH:MM)" in result.output
    assert "next None" not in result.output
