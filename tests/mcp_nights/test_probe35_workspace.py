"""What a model names is bounded by the workspace the user's side declared, and the resources
use that workspace as a tool call does.

Each failed before: ``night_status`` and ``cancel_night`` by ``job_id`` read and stopped a night
of any project (``jobfile.find`` searches them all) while ``status`` there was refused; a
relative ``SKILLOPT_SLEEP_PROJECT`` was refused as a project yet resolved against the server's
working directory as a bound; a resource read on a fresh server whose client declared roots
failed with "no project" (resources used only ``--project`` or the last call's project).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillopt_sleep.mcp import jobfile
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server
from skillopt_sleep.mcp.workspace import PROJECT_ENV

STARTING = (sys.executable, "-c", "import time; time.sleep(60)")
"""A night process that stays running (the conftest kills it after the test)."""


def _roots_for(path: Path) -> Any:
    async def callback(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=path.as_uri(), name="project")])

    return callback


def _projects(tmp_path: Path) -> tuple[Path, Path]:
    inside, outside = tmp_path / "a", tmp_path / "b"
    inside.mkdir()
    outside.mkdir()
    return inside, outside


@pytest.mark.skipif(sys.platform == "win32", reason="nights detach on POSIX only")
def test_a_job_of_a_project_outside_the_workspace_is_neither_read_nor_cancelled(
    tmp_path: Path,
) -> None:
    inside, outside = _projects(tmp_path)
    jobs = Jobs(command=STARTING)

    async def start() -> Any:
        async with Client(build_server(jobs=jobs)) as client:  # no workspace: any project
            started = await client.call_tool("run", {"project": str(outside)})
            assert not started.is_error, started.content
            return started.structured_content

    job = anyio.run(start)
    by_id = {"job_id": job["id"]}

    async def from_a() -> list[Any]:
        replies = []
        async with Client(build_server(), list_roots_callback=_roots_for(inside)) as client:
            replies.append(await client.call_tool("status", {"project": str(outside)}))
            for tool in ("night_status", "cancel_night"):
                replies.append(await client.call_tool(tool, by_id))
        async with Client(build_server(default_project=inside)) as client:  # --project bounds
            replies.append(await client.call_tool("cancel_night", by_id))
        return replies

    status_refused, *refused = anyio.run(from_a)
    assert status_refused.is_error
    assert "is outside the workspace" in status_refused.content[0].text
    for reply in refused:
        assert reply.is_error, reply.structured_content
        text = reply.content[0].text
        assert f"job '{job['id']}' is of a project outside the workspace" in text
        assert repr(str(inside)) in text and str(outside) not in text
        assert "exit code 2" in text
    directory = jobfile.find(job["id"])
    assert not (directory / jobfile.CANCEL_FILE).exists()
    assert jobfile.read_view(directory).state == "running"

    async def from_b() -> Any:
        async with Client(build_server(), list_roots_callback=_roots_for(outside)) as client:
            return await client.call_tool("night_status", by_id)

    seen = anyio.run(from_b)
    assert not seen.is_error and seen.structured_content["state"] == "running"


@pytest.mark.usefixtures("fake_scheduler")
def test_a_relative_project_variable_is_refused_and_bounds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rel" / "sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(PROJECT_ENV, "rel")

    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return [
                await client.call_tool("status", {}),
                await client.call_tool("status", {"project": str(tmp_path / "rel" / "sub")}),
            ]

    for reply in anyio.run(go):
        assert reply.is_error, reply.structured_content
        assert f"{PROJECT_ENV} must be an absolute path, got 'rel'" in reply.content[0].text


def _skill(project: Path, name: str) -> None:
    path = project / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: d\n---\n\n{name} body\n")


async def _read(client: Client, uri: str) -> str:
    read = await client.read_resource(uri)
    return str(getattr(read.contents[0], "text", ""))


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # roots as an input request / mid-request
def test_resources_use_the_client_roots_before_any_tool_call(tmp_path: Path, mode: str) -> None:
    inside, outside = _projects(tmp_path)
    _skill(inside, "inner")
    _skill(outside, "outer")

    async def go() -> tuple[str, str, str]:
        roots = {"list_roots_callback": _roots_for(inside), "mode": mode}
        async with Client(build_server(), **roots) as client:
            fresh = await _read(client, "skillopt-sleep://skill/inner")
            with pytest.raises(MCPError) as failed:
                await _read(client, "skillopt-sleep://report/latest")
        server = build_server(default_project=outside)  # the client's root comes first
        async with Client(server, **roots) as client:
            over = await _read(client, "skillopt-sleep://skill/inner")
        return fresh, str(failed.value), over

    fresh, report_error, over = anyio.run(go)
    assert "inner body" in fresh and "inner body" in over
    assert "no staged proposal" in report_error and "no project" not in report_error


@pytest.mark.usefixtures("fake_scheduler")
def test_without_a_workspace_resources_follow_the_last_call(tmp_path: Path) -> None:
    inside, _ = _projects(tmp_path)
    _skill(inside, "inner")

    async def go() -> tuple[str, str]:
        async with Client(build_server()) as client:
            with pytest.raises(MCPError) as failed:
                await _read(client, "skillopt-sleep://skill/inner")
            assert not (await client.call_tool("status", {"project": str(inside)})).is_error
            return str(failed.value), await _read(client, "skillopt-sleep://skill/inner")

    before, after = anyio.run(go)
    assert "no project" in before
    assert "inner body" in after
