"""The MCP server in-process (``mcp.Client``): schemas, roots, background nights, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from skillopt_sleep.mcp import build_server
from tests.engine._world import World

TOOLS = {
    "status",
    "harvest",
    "mine",
    "dry_run",
    "run",
    "night_status",
    "cancel_night",
    "proposals",
    "refused",
    "report",
    "adopt",
    "reject",
    "rollback",
}


def _roots_for(path: Path) -> Any:
    async def callback(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=path.as_uri(), name="project")])

    return callback


def _call(server: Any, calls: list[tuple[str, dict[str, Any]]], roots: Path | None = None) -> list:
    async def go() -> list:
        kwargs = {"list_roots_callback": _roots_for(roots)} if roots else {}
        async with Client(server, **kwargs) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_every_tool_has_schemas_and_annotations() -> None:
    async def go() -> list[types.Tool]:
        async with Client(build_server()) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(go)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.output_schema and tool.annotations and tool.description
        assert "roots" not in tool.input_schema.get("properties", {})
    assert tools["status"].annotations.read_only_hint is True
    assert tools["adopt"].annotations.destructive_hint is True
    assert tools["rollback"].annotations.destructive_hint is True
    sources = json.dumps(tools["run"].input_schema)
    for name in ("claude", "codex", "copilot"):  # from the harvest registry
        assert f'"{name}"' in sources
    assert "claude-cli" in sources and "mock" in sources  # backend pattern from the registry


def test_project_defaults_to_the_client_root_not_the_cwd(world: World) -> None:
    (result,) = _call(build_server(), [("status", {})], roots=world.webapp)
    assert not result.is_error
    assert result.structured_content["project"] == str(world.webapp.resolve())


def test_without_root_or_project_the_error_says_what_to_pass() -> None:
    (result,) = _call(build_server(), [("status", {})])
    assert result.is_error
    assert "project" in result.content[0].text and "exit code 2" in result.content[0].text


def test_invalid_arguments_are_error_results(tmp_path: Path) -> None:
    results = _call(
        build_server(),
        [
            ("run", {"project": str(tmp_path), "backend": "no-such-backend"}),
            ("run", {"project": str(tmp_path), "sources": ["nowhere"]}),
            ("status", {"project": "relative/path"}),
            ("status", {"project": str(tmp_path / "missing")}),
            ("report", {"project": str(tmp_path)}),
            ("night_status", {"job_id": "night-99"}),
        ],
    )
    assert all(r.is_error for r in results)
    texts = [r.content[0].text for r in results]
    assert "no staged proposal" in texts[4]
    assert "night-99" in texts[5]


def test_a_night_runs_in_the_background_then_stages_and_adopts(world: World) -> None:
    server = build_server()

    async def go() -> dict[str, Any]:
        async with Client(server, list_roots_callback=_roots_for(world.webapp)) as client:
            started = await client.call_tool("run", {})
            assert not started.is_error, started.content
            job = started.structured_content
            assert job["state"] in ("running", "finished") and job["id"]
            while job["state"] == "running":
                await anyio.sleep(0.05)
                job = (
                    await client.call_tool("night_status", {"job_id": job["id"]})
                ).structured_content
            assert job["state"] == "finished", job["error"]
            proposal = job["report"]["proposal"]
            listed = await client.call_tool("proposals", {})
            assert [p["id"] for p in listed.structured_content["proposals"]] == [proposal]
            shown = await client.call_tool("report", {})
            assert shown.structured_content["proposal"] == proposal
            assert shown.structured_content["text"]
            resource = await client.read_resource("skillopt-sleep://report/latest")
            assert resource.contents[0].text == shown.structured_content["text"]
            adopted = await client.call_tool("adopt", {"proposal": proposal})
            assert adopted.structured_content["action"] == "adopted"
            rolled = await client.call_tool("rollback", {})
            assert rolled.structured_content["action"] == "rolled back"
            return (await client.call_tool("status", {})).structured_content

    status = anyio.run(go)
    assert status["nights"] and status["nights"][-1]["outcome"] == "staged"


def test_a_second_night_for_the_same_project_is_refused_while_one_runs(tmp_path: Path) -> None:
    import threading

    release = threading.Event()

    def slow_night(project: Path, config: Any, **_: Any) -> Any:
        release.wait(10)
        raise RuntimeError("stopped")

    server = build_server(runner=slow_night)
    try:
        first, second = _call(
            server, [("dry_run", {"project": str(tmp_path)}), ("run", {"project": str(tmp_path)})]
        )
    finally:
        release.set()
    assert not first.is_error and first.structured_content["state"] == "running"
    assert second.is_error and "already running" in second.content[0].text


def test_harvest_and_mine_preview_without_advancing_the_index(world: World) -> None:
    harvested, again, mined = _call(
        build_server(),
        [("harvest", {}), ("harvest", {}), ("mine", {"sources": ["claude", "codex", "copilot"]})],
        roots=world.webapp,
    )
    assert harvested.structured_content["sessions"] > 0
    assert again.structured_content["sessions"] == harvested.structured_content["sessions"]
    assert mined.structured_content["families"]


@pytest.mark.parametrize("tool", ["adopt", "reject", "rollback"])
def test_adoption_tools_without_a_proposal_fail_cleanly(tool: str, tmp_path: Path) -> None:
    (result,) = _call(build_server(), [(tool, {"project": str(tmp_path)})])
    assert result.is_error


def test_a_night_started_over_mcp_never_auto_adopts(tmp_path: Path) -> None:
    import threading

    seen: list[Any] = []
    called = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> Any:
        seen.append(config)
        called.set()
        raise RuntimeError("stop here")

    (tmp_path / ".skillopt-sleep").mkdir()
    (tmp_path / ".skillopt-sleep" / "config.toml").write_text("[night]\nauto_adopt = true\n")
    (started,) = _call(build_server(runner=night), [("run", {"project": str(tmp_path)})])
    assert not started.is_error
    assert called.wait(30)  # a hang guard, not a timing assertion
    assert seen[0].night.auto_adopt is False


def test_the_server_project_serves_tools_and_resource_errors_say_why(world: World) -> None:
    """`mcp --project P`: a tool call without project or roots uses P (it failed with "no
    project"); an unknown skill resource names the skills there is (it was a bare "Error
    creating resource from template" and a traceback on the server's stderr)."""
    from mcp.shared.exceptions import MCPError

    server = build_server(default_project=world.webapp)
    (result,) = _call(server, [("status", {})])
    assert not result.is_error, result.content
    assert result.structured_content["project"] == str(world.webapp.resolve())

    async def read_missing() -> str:
        async with Client(server) as client:
            with pytest.raises(MCPError) as failed:
                await client.read_resource("skillopt-sleep://skill/nope")
            return str(failed.value)

    message = anyio.run(read_missing)
    assert "no skill named 'nope'" in message and "exit code 2" in message
