"""`report <night>` for a night that staged nothing ("no change", "nothing new", "stopped") says
what that night did and shows the report its folder keeps (report.json, rendered as a staged
report is); before, it exited 2 with "no staged proposal '<id>'" and "list them with
`skillopt-sleep status`", where that night was listed. Without an id and with nothing ever
staged it showed "no staged proposal yet: run a night first" after nights had run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import UsageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, read_report, report_path
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import summary_line
from skillopt_sleep.engine.state import append_line, write_json
from skillopt_sleep.jsonable import to_jsonable
from tests.stage.reports import many_families, quiet_night

NIGHT = "20261123-031700"
WHY = "the optimizer proposed no edit (it asked for no change)"


def _quiet(project: Path, report: NightReport | None = None, *, keep: bool = True) -> Path:
    """A finished night that staged nothing: its history line, and its folder's report.json
    unless ``keep`` is False (a folder pruned since)."""
    night = report or replace(quiet_night(), outcome="no change", message=WHY, project=str(project))
    state = ProjectState(project).ensure()
    if keep:
        write_json(state.night_dir(night.night_id) / "report.json", to_jsonable(night))
    append_line(state.history_path, summary_line(night))
    return state.night_dir(night.night_id) / "report.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_report_of_a_night_that_staged_nothing_says_what_it_did(project: Path) -> None:
    _quiet(project)
    code, out, err = _cli("report", NIGHT, "-p", str(project))
    assert code == 0, err
    head = out.splitlines()[0]
    assert head.startswith(f"Night {NIGHT} (2026-11-23 03:17 UTC) staged nothing: {WHY}")
    assert f"# SkillOpt-Sleep night {NIGHT}" in out and "outcome: **no change**" in out


def test_its_html_and_json_forms(project: Path) -> None:
    path = _quiet(project)
    code, out, _ = _cli("report", NIGHT, "-p", str(project), "--format", "html")
    assert code == 0 and out.lstrip().lower().startswith("<!doctype html")
    assert "staged nothing" in out and out.count("<main>") == 1

    code, out, _ = _cli("report", NIGHT, "-p", str(project), "--json")
    shown = json.loads(out)
    assert code == 0 and shown["night_id"] == NIGHT and shown["outcome"] == "no change"
    assert shown["proposal_state"] == "" and "staged nothing" in shown["note"]

    code, out, _ = _cli("report", NIGHT, "-p", str(project), "--path", "--json")
    assert code == 0 and json.loads(out) == {"path": str(path), "format": "json"}


def test_its_path_names_the_report_json_it_keeps(project: Path) -> None:
    path = _quiet(project)
    assert report_path(project, NIGHT, "json") == path
    with pytest.raises(UsageError) as refused:
        report_path(project, NIGHT, "md")
    assert "has no report.md" in refused.value.message and str(path) in refused.value.message


def test_a_cut_names_the_file_that_has_the_whole(project: Path) -> None:
    """A night of many families cuts them; the cut names the night's report.json, not a
    families.md that only a staged proposal has."""
    path = _quiet(
        project, replace(many_families(40), outcome="no change", proposal="", message=WHY)
    )
    for kind in ("md", "html"):
        text = read_report(project, NIGHT, kind).text
        assert str(path) in text and "families.md" not in text


def test_a_night_whose_folder_is_no_longer_kept_still_says_what_it_did(project: Path) -> None:
    _quiet(project, keep=False)
    shown = read_report(project, NIGHT)
    assert shown.note.startswith(f"Night {NIGHT} (2026-11-23 03:17 UTC) staged nothing")
    assert "no longer kept" in shown.note and shown.text.startswith(shown.note)
    with pytest.raises(UsageError, match="has no report"):
        report_path(project, NIGHT, "json")


def test_with_nothing_ever_staged_the_latest_night_is_shown(project: Path) -> None:
    _quiet(project)
    shown = read_report(project)
    assert shown.latest_night is not None and shown.latest_night.night_id == NIGHT
    assert "staged nothing" in shown.note and f"# SkillOpt-Sleep night {NIGHT}" in shown.text


def test_an_unknown_id_or_a_path_is_still_refused(project: Path) -> None:
    _quiet(project)
    code, _, err = _cli("report", "20990101-000000", "-p", str(project))
    assert code == 2 and "no staged proposal '20990101-000000', nor a night" in err
    code, _, err = _cli("report", "../nights", "-p", str(project))
    assert code == 2 and "is not a proposal id" in err and "nor a night" not in err


def test_status_counts_the_archives_rows_not_its_bookkeeping(tmp_path: Path) -> None:
    """The archive's ``meta`` table (which redaction rules its texts went through) is no count a
    user reads in ``status``."""
    from skillopt_sleep.engine.views import _archive_counts
    from skillopt_sleep.mine.archive import Archive

    state = ProjectState(tmp_path / "project")
    Archive(state.archive_path).close()
    counts, problem = _archive_counts(state)
    assert problem == "" and "meta" not in counts and "requests" in counts
