"""``run`` and ``dry_run`` take ``since`` as the CLI's ``--since`` does (the MCP tools had no way
to ask a night for a window), and a window the night could not use fails the call itself."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from skillopt_sleep.mcp.jobs import JobView
from skillopt_sleep.mcp.server import build_server


class RecordingJobs:
    """Jobs that record what they were asked to start instead of starting a night."""

    def __init__(self) -> None:
        self.started: list[tuple[Path, dict[str, Any], bool]] = []

    def start(self, project: Path, overrides: Mapping[str, Any], *, dry_run: bool) -> JobView:
        self.started.append((project, dict(overrides), dry_run))
        raise RuntimeError("recorded")  # the call's result does not matter here


def _call(jobs: RecordingJobs, tool: str, arguments: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(build_server(jobs=jobs)) as client:  # type: ignore[arg-type]
            return await client.call_tool(tool, arguments)

    return anyio.run(go)


@pytest.mark.parametrize("tool", ["run", "dry_run"])
def test_since_reaches_the_night_as_its_window(tmp_path: Path, tool: str) -> None:
    jobs = RecordingJobs()
    _call(jobs, tool, {"project": str(tmp_path), "since": "7d"})
    assert len(jobs.started) == 1
    _, overrides, dry_run = jobs.started[0]
    assert overrides["night.since"] == "7d"
    assert dry_run is (tool == "dry_run")


@pytest.mark.parametrize("window", ["soon", "7 days", "99999999999d"])
def test_a_window_the_night_cannot_use_fails_the_call(tmp_path: Path, window: str) -> None:
    jobs = RecordingJobs()
    result = _call(jobs, "run", {"project": str(tmp_path), "since": window})
    assert result.is_error
    text = " ".join(getattr(part, "text", "") for part in result.content)
    assert "exit code 2" in text, text
    assert jobs.started == []


def test_without_since_the_night_keeps_its_own_window(tmp_path: Path) -> None:
    jobs = RecordingJobs()
    _call(jobs, "run", {"project": str(tmp_path)})
    assert "night.since" not in jobs.started[0][1]
