"""A night never starts in a folder that holds the user's home, whichever way the MCP server was
told the project: the ``project`` argument was refused, but a client opened in the home folder
(its root) or ``skillopt-sleep mcp --project ~`` started a night that read every project's
sessions and staged into the user-wide skill folders (the CLI's ``run`` refuses such a folder).
Reading (``status``) there stays allowed. Failed before: the nights started."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.server import build_server

STARTING = (sys.executable, "-c", "raise SystemExit(0)")
"""A night process that would end at once (none may start here)."""


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "repo").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


def _rooted_at(path: Path) -> Any:
    async def callback(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=path.as_uri(), name="home")])

    return callback


def _no_job(tmp_path: Path) -> bool:
    return not list((tmp_path / "state").glob("projects/*/jobs/*"))


def _refused(reply: Any, home: Path) -> str:
    assert reply.is_error, reply.structured_content
    text: str = reply.content[0].text
    assert f"project {str(home.resolve())!r} holds your home folder" in text
    return text


@pytest.mark.usefixtures("fake_scheduler")
@pytest.mark.parametrize("tool", ["run", "dry_run"])
def test_a_client_rooted_at_home_starts_no_night_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    home = _home(tmp_path, monkeypatch)
    jobs = Jobs(command=STARTING)

    async def go() -> list[Any]:
        async with Client(build_server(jobs=jobs), list_roots_callback=_rooted_at(home)) as c:
            return [await c.call_tool(tool, {}), await c.call_tool("status", {})]

    started, status = anyio.run(go)
    text = _refused(started, home)
    assert "open the repository's own folder in the client" in text
    assert "project='/path/to/repo'" in text
    assert not status.is_error, status.content
    assert _no_job(tmp_path)


def _start(tool: str, root: Path | None = None, default: Path | None = None) -> Any:
    """``tool`` called without ``project`` on a server told only ``default`` (its --project),
    by a client whose workspace root is ``root``."""
    roots = {"list_roots_callback": _rooted_at(root)} if root is not None else {}

    async def go() -> Any:
        server = build_server(default_project=default, jobs=Jobs(command=STARTING))
        async with Client(server, **roots) as client:
            return await client.call_tool(tool, {})

    return anyio.run(go)


def test_a_server_given_the_home_as_its_project_starts_no_night_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path, monkeypatch)
    _refused(_start("run", default=home), home)
    assert _no_job(tmp_path)


def test_a_repository_inside_the_home_still_gets_its_night(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path, monkeypatch)
    reply = _start("dry_run", root=home / "repo")
    assert not reply.is_error, reply.content
    assert reply.structured_content["project"] == str((home / "repo").resolve())
