"""A night the CLI or the schedule is running holds the project's night lock: ``run`` over MCP
is refused at once, saying so, and leaves no job behind (before, it returned a running job that
failed a moment later, and that failed job became the project's latest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.mcp import build_server, jobfile


def test_run_is_refused_while_another_process_holds_the_night_lock(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()

    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.call_tool("run", {"project": str(project)})

    with ProjectState(project).night_lock("skillopt-sleep night"):
        result = anyio.run(go)
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "already running" in text and "exit code 5" in text
    assert jobfile.project_jobs(project) == []
