"""Odd proposal ids and project paths over MCP are error results that say what was wrong (each
test failed before: an explicit empty id adopted the latest proposal, and an id or project too
long for a file name gave only "Error executing tool")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.engine import ProjectState, list_proposals
from skillopt_sleep.mcp import build_server
from skillopt_sleep.stage.proposal import FileChange, stage

PROPOSAL = "20260101-000000"


def _call(calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_odd_ids_and_paths_are_error_results_with_a_reason(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    live = project / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    stage(ProjectState(project), PROPOSAL, [FileChange(live, "managed", None, "learned\n", 1)], {})
    where = {"project": str(project)}
    results = _call(
        [
            ("adopt", {**where, "proposal": ""}),
            ("report", {**where, "proposal": ""}),
            ("report", {**where, "proposal": "a" * 300}),
            ("reject", {**where, "proposal": "a" * 300}),
            ("report", {**where, "proposal": "x\x1b[31mRED\x07"}),
            ("status", {"project": "/x" * 3000}),
        ]
    )
    assert all(r.is_error for r in results)
    texts = [r.content[0].text for r in results]
    assert "empty proposal id" in texts[0] and "empty proposal id" in texts[1]
    assert "no staged proposal" in texts[2] and "no staged proposal" in texts[3]
    assert "no staged proposal" in texts[4] and "\x1b" not in texts[4]
    assert "File name too long" in texts[5] and len(texts[5]) < 1000
    assert not live.exists() and [p.state for p in list_proposals(project)] == ["pending"]
