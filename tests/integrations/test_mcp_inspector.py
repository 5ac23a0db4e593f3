"""The MCP Inspector's CLI (``@modelcontextprotocol/inspector``, ``mcp-inspector --cli``) lists the
server's tools and calls one over stdio: a third-party client, not our own SDK's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        shutil.which("mcp-inspector") is None,
        reason="the MCP Inspector is not installed (npm @modelcontextprotocol/inspector)",
    ),
]


def _inspect(tmp_path: Path, *args: str) -> dict:
    done = subprocess.run(
        [
            str(shutil.which("mcp-inspector")),
            "--cli",
            "-e",
            f"SKILLOPT_SLEEP_HOME={tmp_path / 'state'}",
            "-e",
            f"SKILLOPT_SLEEP_CONFIG={tmp_path / 'none.toml'}",
            sys.executable,
            "-m",
            "skillopt_sleep.mcp",
            *args,
        ],
        env={
            **os.environ,
            "HOME": str(tmp_path),
            "MCP_CATALOG_PATH": str(tmp_path / "catalog.json"),
        },
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


def test_inspector_lists_the_tools_and_calls_status(tmp_path: Path) -> None:
    listed = _inspect(tmp_path, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    assert {"status", "run", "night_status", "report", "adopt"} <= set(tools)
    assert tools["adopt"]["annotations"]["destructiveHint"] is True
    assert "outputSchema" in tools["status"]
    project = tmp_path / "proj"
    project.mkdir()
    called = _inspect(
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "status",
        "--tool-arg",
        f"project={project}",
    )
    assert called["structuredContent"]["project"] == str(project.resolve())
