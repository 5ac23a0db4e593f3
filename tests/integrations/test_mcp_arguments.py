"""A tool call's arguments are the ones its schema lists: an unknown one is an error result that
names it, and nothing runs (before, it was dropped, so ``adopt`` with a misspelt
``proposal_id`` adopted the latest proposal and ``status`` with ``projct`` read another project)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.engine import ProjectState, list_proposals
from skillopt_sleep.mcp import build_server
from skillopt_sleep.stage.proposal import FileChange, stage


def _call(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    async def go() -> tuple[list[Any], list[Any]]:
        async with Client(server) as client:
            results = [await client.call_tool(name, args) for name, args in calls]
            return results, (await client.list_tools()).tools

    return anyio.run(go)


def test_an_unknown_argument_is_refused_by_name_and_nothing_is_adopted(tmp_path: Path) -> None:
    project, other = tmp_path / "proj", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    live = project / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    stage(
        ProjectState(project), "20260101-000000", [FileChange(live, "managed", None, "x\n", 1)], {}
    )
    server = build_server(default_project=project)
    (adopted, read, started), tools = _call(
        server,
        [
            ("adopt", {"proposal_id": "20251231-000000"}),
            ("status", {"projct": str(other)}),
            ("dry_run", {"project": str(project), "max_task": 1}),
        ],
    )
    for result, name in ((adopted, "proposal_id"), (read, "projct"), (started, "max_task")):
        assert result.is_error and name in result.content[0].text
        assert "Extra inputs are not permitted" in result.content[0].text
    assert not live.exists() and [p.state for p in list_proposals(project)] == ["pending"]
    assert not ProjectState(project).root.joinpath("jobs").exists()
    assert all(t.input_schema.get("additionalProperties") is False for t in tools)
