"""The MCP server as a client starts it: a subprocess on stdio (``python -m skillopt_sleep.mcp``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.integration


def test_stdio_session_lists_tools_and_calls_status(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    env = {
        **os.environ,
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
        "SKILLOPT_SLEEP_CONFIG": str(tmp_path / "none.toml"),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillopt_sleep.mcp"], env=env, cwd=str(tmp_path)
    )

    async def go() -> tuple[set[str], dict]:
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("status", {"project": str(project)})
            assert not result.is_error, result.content
            return tools, result.structured_content

    tools, status = anyio.run(go)
    assert {"status", "run", "night_status", "adopt"} <= tools
    assert status["project"] == str(project.resolve()) and status["nights"] == []
