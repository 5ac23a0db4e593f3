"""What the MCP tools hand back stays small and inert whatever the user's text or arguments hold.

Each test failed before: ``mine`` passed a request's terminal escapes and bidi overrides through
raw; ``report`` in JSON was 840,000 characters for a 500-family night; a project argument of
100,000 characters came back whole in the error; two jobs started in the same second could list
in either order, so the project's "latest" could be the older one.
"""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp import Client

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.engine.night import TargetRun
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import stage_report
from skillopt_sleep.mcp import build_server, jobfile
from skillopt_sleep.mine.config import FamilySummary, MineResult
from tests.stage.reports import many_families

MAX_RESPONSE = 16 * 1024  # bytes, as tests/mcp_nights/test_bounded_outputs.py


def _call(tool: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.call_tool(tool, args)

    return anyio.run(go)


def _stage(project: Path, report: NightReport) -> NightReport:
    """Stage ``report`` as a night would, each changed file with its accepted edits."""
    runs = []
    for change in report.changes:
        accepted = tuple(e for e in report.accepted if e.skill == change.path)
        proposed = "".join(f"{e.content}\n" for e in accepted)
        result: Any = SimpleNamespace(proposed_text=proposed, accepted=accepted)
        live = None if change.created else b"# old\n"
        runs.append(TargetRun(Path(change.path), change.kind, live, result))
    return stage_report(ProjectState(project), report, runs)


def test_mine_shows_a_requests_escapes_and_bidi_overrides_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillopt_sleep.engine

    hostile = "fix the \u202elogin\u202c test \x1b]0;owned\x07 now \x9b2J please"
    family = FamilySummary("fam-1", "r", 3, (hostile,) * 3, {}, {}, "rubric")
    mined = MineResult((), (family,), "tfidf", {"sessions": 3})
    monkeypatch.setattr(skillopt_sleep.engine, "preview_families", lambda *_, **__: mined)
    project = tmp_path / "proj"
    project.mkdir()

    result = _call("mine", {"project": str(project)})
    assert not result.is_error, result.content
    shown = result.structured_content["families"][0]["examples"][0]
    for raw in ("\u202e", "\u202c", "\x1b", "\x07", "\x9b"):
        assert raw not in shown and raw not in result.content[0].text
    assert shown == "fix the \\u202elogin\\u202c test \\x1b]0;owned\\x07 now \\x9b2J please"


def test_a_json_report_too_big_for_a_tool_result_gives_its_path(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    staged = _stage(project, many_families(500))

    result = _call("report", {"project": str(project), "format": "json"})
    assert not result.is_error, result.content
    shown = result.structured_content
    assert len(result.content[0].text.encode("utf-8")) < MAX_RESPONSE
    path = Path(staged.proposal_dir) / "report.json"
    assert shown["path"] == str(path) and path.stat().st_size > 20 * MAX_RESPONSE
    text = json.loads(shown["text"])
    assert text["proposal_state"] == shown["state"] == "pending"
    assert str(path) in text["note"] == shown["note"]
    assert "characters" in shown["note"]


def test_a_small_json_report_is_given_whole(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    _stage(project, many_families(2))

    result = _call("report", {"project": str(project), "format": "json"})
    assert not result.is_error, result.content
    text = json.loads(result.structured_content["text"])
    assert len(text["families"]) == 2 and text["proposal_state"] == "pending"


@pytest.mark.parametrize("project", ["x" * 100_000, "/tmp/" + "d/" * 1800 + "nowhere"])
def test_a_huge_project_argument_is_not_repeated_whole_in_the_error(project: str) -> None:
    result = _call("status", {"project": project})
    assert result.is_error
    text = result.content[0].text
    assert len(text) < 1000, len(text)
    assert f"({len(project)} characters)" in text


def test_the_latest_job_is_the_last_started_within_the_same_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random suffixes that happen to fall in descending order: ids began with the second only."""
    descending = (f"{n:06x}" for n in count(0xFFFFFF, -1))
    monkeypatch.setattr("skillopt_sleep.mcp.jobfile.secrets.token_hex", lambda _n: next(descending))
    project = tmp_path / "proj"
    project.mkdir()
    made = [jobfile.create(project) for _ in range(5)]
    for directory in made:
        view = jobfile.JobView(directory.name, str(project), True, "running", jobfile.now())
        jobfile.write_view(directory, view)

    assert jobfile.project_jobs(project) == made
