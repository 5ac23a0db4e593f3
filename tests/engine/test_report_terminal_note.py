"""``skillopt-sleep report`` on a terminal shows its first line, the note (which proposal or
night this is and what the latest night did), as written: it printed the note escaped for
Markdown (``\\[night\\]``, ``a\\_b``), as the Markdown report an agent reads carries it. The note
can quote a night's message (a backend's error, a model's words), so on the terminal it must be
escaped for Rich instead: ``[bold red]`` shows as written and styles nothing.

The engine gives the report without its note (``report_view.report_body``); the CLI printing
the note through Rich is a change in ``skillopt_sleep/cli/night.py``, marked below until made."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, read_report
from skillopt_sleep.engine.reporting import summary_line
from skillopt_sleep.engine.state import append_line, write_json
from skillopt_sleep.jsonable import to_jsonable
from tests.stage.reports import quiet_night

NIGHT = "20261123-031700"
SAID = "stopped: the backend said [night] [bold red]red[/] *a_b* `tick` | www"


def _stopped(project: Path, *, keep: bool = True) -> None:
    night = replace(quiet_night(), outcome="stopped", message=SAID, project=str(project))
    state = ProjectState(project).ensure()
    if keep:
        write_json(state.night_dir(NIGHT) / "report.json", to_jsonable(night))
    append_line(state.history_path, summary_line(night))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_the_markdown_report_without_its_note(project: Path) -> None:
    from skillopt_sleep.engine.report_view import report_body

    _stopped(project)
    shown = read_report(project)
    body = report_body(shown)
    assert body.startswith(f"# SkillOpt-Sleep night {NIGHT}\n")
    first, _, _ = shown.text.partition("\n")
    assert shown.text == f"{first}\n\n{body}" and "\\[night\\]" in first  # Markdown keeps it safe
    assert SAID in shown.note


def test_a_night_with_no_report_left_is_only_its_note(project: Path) -> None:
    from skillopt_sleep.engine.report_view import report_body

    _stopped(project, keep=False)
    shown = read_report(project)
    assert report_body(shown) == "" and "no longer kept" in shown.note


@pytest.mark.parametrize("kind", ["html", "json"])
def test_a_page_or_json_keeps_its_note_inside(project: Path, kind: str) -> None:
    from skillopt_sleep.engine.report_view import report_body

    _stopped(project)
    shown = read_report(project, NIGHT, kind)
    assert report_body(shown) == shown.text


def test_the_terminal_shows_the_note_as_written(project: Path) -> None:
    _stopped(project)
    result = CliRunner().invoke(app, ["report", "-p", str(project)])
    assert result.exit_code == 0, result.stderr
    first, blank, title = result.stdout.splitlines()[:3]
    assert first.startswith(f"Night {NIGHT} (2026-11-23 03:17 UTC) staged nothing: {SAID}")
    assert "\\" not in first  # neither Markdown's escapes nor Rich's are shown
    assert blank == "" and title == f"# SkillOpt-Sleep night {NIGHT}"
