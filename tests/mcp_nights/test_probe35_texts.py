"""What the model is told is true and something it can act on; a read tool leaves no state.

Each failed before: ``since`` on run/dry_run said it replaced the "new since the last night"
filter (it only reaches back before the first night) and said the same on ``harvest``, where it
is a window over the new sessions; ``report``'s ``format`` had no description; adopt's drift
error told the model to run ``skillopt-sleep adopt ... --force`` (which the server's
instructions map to the ``adopt`` tool, which has no force) and a night's "none has a judge
yet" named ``--judge``, which no tool takes; a refused argument ended with pydantic's "For
further information visit https://errors.pydantic.dev/..." line; ``harvest`` and ``mine``
created ``<state>/projects/<key>/`` and an empty harvest index for a project with no state.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp import Client

from skillopt_core.errors import DriftError
from skillopt_sleep.engine import ProjectState, adopt
from skillopt_sleep.engine.records import NightReport, Usage
from skillopt_sleep.engine.reporting import nothing_to_replay
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server
from skillopt_sleep.paths import state_dir
from skillopt_sleep.stage.proposal import FileChange, stage
from tests.engine._world import World

NIGHT = "20260101-010000"
TERMINAL = "ask the user to run it in a terminal"


def _tools() -> dict[str, Any]:
    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.list_tools()

    return {t.name: t for t in anyio.run(go).tools}


def test_since_and_format_say_what_they_do() -> None:
    tools = _tools()
    for name in ("run", "dry_run"):
        since = tools[name].input_schema["properties"]["since"]["description"]
        assert "before the first night" in since and "does not replace" in since, since
    harvest = tools["harvest"].input_schema["properties"]["since"]["description"]
    assert "among those new since the last night" in harvest
    assert "default: the window a night would read" in harvest
    report_format = tools["report"].input_schema["properties"]["format"]
    assert "md" in report_format["description"] and "json" in report_format["description"]


def test_a_refused_argument_says_what_to_fix_without_pydantic_links(tmp_path: Path) -> None:
    calls = [
        ("proposals", {"project": str(tmp_path), "limit": 0}),
        ("adopt", {"project": str(tmp_path), "proposal_id": "x"}),
    ]

    async def go() -> list[str]:
        async with Client(build_server()) as client:
            return [(await client.call_tool(n, a)).content[0].text for n, a in calls]

    limit, misspelt = anyio.run(go)
    for text in (limit, misspelt):
        assert "errors.pydantic.dev" not in text and "[type=" not in text, text
    assert "limit: Input should be greater than or equal to 1 (got 0)" in limit
    assert "fix: correct limit" in limit
    assert "proposal_id: Extra inputs are not permitted: not an argument of this tool" in misspelt
    assert "(it takes: project, proposal)" in misspelt
    assert "fix: leave out proposal_id" in misspelt


def test_adopts_drift_fix_is_the_users_to_run_in_a_terminal(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    skill = project / ".claude" / "skills" / "s" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    old = b"---\nname: s\ndescription: s things\n---\nold\n"
    skill.write_bytes(old)
    stage(ProjectState(project), NIGHT, [FileChange(skill, "skill", old, "new\n", 1)], {})
    skill.write_bytes(old + b"mine\n")
    with pytest.raises(DriftError) as cli:  # the CLI's own words stay as they are
        adopt(project, NIGHT)
    assert f"`skillopt-sleep adopt {NIGHT} --force`" in cli.value.hint
    assert "terminal" not in str(cli.value)

    async def go() -> str:
        async with Client(build_server()) as client:
            reply = await client.call_tool("adopt", {"project": str(project), "proposal": NIGHT})
            assert reply.is_error
            return reply.content[0].text

    text = anyio.run(go)
    assert f"`skillopt-sleep adopt {NIGHT} --force` (no tool does this: {TERMINAL})" in text
    assert "exit code 6" in text


def test_a_nights_judge_advice_is_the_users_to_follow(tmp_path: Path) -> None:
    mined = SimpleNamespace(
        families=[1, 2], tasks=[SimpleNamespace(checks=(), reference="", rubric="clear")]
    )
    message = nothing_to_replay(mined, has_judge=False)
    assert "(--judge)" in message  # what the CLI prints, unchanged

    def night(project: Path, config: Any, **_: Any) -> NightReport:
        return NightReport(
            "n1", str(project), "", "", True, "dry run", message, 1, 1, 0, (), (), (), None, Usage()
        )

    jobs = Jobs(night)

    async def go() -> Any:
        async with Client(build_server(jobs=jobs)) as client:
            job = (await client.call_tool("dry_run", {"project": str(tmp_path)})).structured_content
            jobs.wait(job["id"], 60)
            return (
                await client.call_tool("night_status", {"job_id": job["id"]})
            ).structured_content

    told = anyio.run(go)["report"]["message"]
    assert "none has a judge yet" in told and "(--judge)" not in told
    assert "`skillopt-sleep run --judge NAME` in a terminal" in told


@pytest.mark.usefixtures("fake_scheduler")
def test_without_since_harvest_and_mine_preview_what_a_night_would_read(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions last active a year ago are older than the default window (30d): a first night
    reads none of them, so a preview that counted them all said more than a night would do."""
    monkeypatch.delenv("SKILLOPT_SLEEP_NIGHT_SINCE")
    year_ago = time.time() - 365 * 86400
    for path in world.home.rglob("*"):
        if path.is_file():
            os.utime(path, (year_ago, year_ago))
    where = {"project": str(world.webapp)}

    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [
                await client.call_tool("harvest", where),
                await client.call_tool("mine", where),
                await client.call_tool("harvest", {**where, "since": "3650d"}),
            ]

    night, mined, asked = (r.structured_content for r in anyio.run(go))
    assert night["sessions"] == 0 and mined["sessions"] == 0
    assert asked["sessions"] > 0


@pytest.mark.usefixtures("fake_scheduler")
def test_harvest_and_mine_leave_a_project_without_state_without_state(world: World) -> None:
    where = {"project": str(world.webapp)}

    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [await client.call_tool(name, where) for name in ("harvest", "mine")]

    harvested, mined = anyio.run(go)
    assert not harvested.is_error and not mined.is_error, (harvested.content, mined.content)
    assert harvested.structured_content["sessions"] > 0
    assert mined.structured_content["sessions"] == harvested.structured_content["sessions"]
    assert not ProjectState(world.webapp).root.exists()
    assert not (state_dir() / "projects").exists()
