"""``report`` on a night whose report.json cannot be rendered still says why: the terminal prints
the note apart from the Markdown body, and the reason was added to the rendered text only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, read_report
from skillopt_sleep.engine.reporting import summary_line
from skillopt_sleep.engine.state import append_line, write_json
from skillopt_sleep.jsonable import to_jsonable
from tests.stage.reports import quiet_night

NIGHT = "20261123-031700"


def test_a_report_that_cannot_be_shown_says_why_on_the_terminal(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    night = replace(quiet_night(), outcome="stopped", message="boom", project=str(project))
    state = ProjectState(project).ensure()
    data = to_jsonable(night)
    data["requests"] = "many"  # the wrong type: the report cannot be rendered
    write_json(state.night_dir(NIGHT) / "report.json", data)
    append_line(state.history_path, summary_line(night))
    assert "cannot be shown" in read_report(project).note
    result = CliRunner().invoke(app, ["report", "-p", str(project)])
    assert result.exit_code == 0, result.output
    assert "Its report cannot be shown" in result.stdout and "requests" in result.stdout
