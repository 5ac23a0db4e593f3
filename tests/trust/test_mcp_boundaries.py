"""MCP tool arguments are chosen by a model, which a prompt in a file it read can steer: they may
narrow a night, never widen it, and stay in the workspace the user's side declared.

Failed before: ``run`` with ``max_calls=0`` (or above the configured limit) started a night with
no cap at all; ``project="/"`` (or the home folder) previewed and mined every project's sessions;
a ``project`` outside the client's declared workspace root was served as well as the root.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from skillopt_sleep.engine.config import ConfigError, load_config
from skillopt_sleep.mcp import build_server


def _call(server: Any, name: str, args: dict[str, Any], root: Path | None = None) -> Any:
    async def roots(_context: Any) -> types.ListRootsResult:
        assert root is not None
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name="project")])

    async def go() -> Any:
        kwargs = {"list_roots_callback": roots} if root else {}
        async with Client(server, **kwargs) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def _recording_server() -> tuple[Any, list[Any], threading.Event]:
    seen: list[Any] = []
    called = threading.Event()

    def night(project: Path, config: Any, **_: Any) -> Any:
        seen.append(config)
        called.set()
        raise RuntimeError("stop here")

    return build_server(runner=night), seen, called


@pytest.mark.parametrize("max_calls", [0, 401, 100000])
def test_a_model_cannot_lift_the_budget(tmp_path: Path, max_calls: int) -> None:
    server, seen, _ = _recording_server()
    result = _call(server, "run", {"project": str(tmp_path), "max_calls": max_calls})
    assert result.is_error and "budget.max_calls" in _text(result)
    assert seen == []


def test_a_model_may_lower_the_budget(tmp_path: Path) -> None:
    server, seen, called = _recording_server()
    result = _call(server, "run", {"project": str(tmp_path), "max_calls": 10})
    assert not result.is_error, _text(result)
    assert called.wait(30)  # a hang guard, not a timing assertion
    assert seen[0].budget.max_calls == 10


def test_no_limit_stays_allowed_when_the_user_chose_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user.toml"
    user.write_text("[budget]\nmax_calls = 0\n")
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(user))
    config = load_config(tmp_path, chosen_by_model={"budget.max_calls": 0})
    assert config.budget.max_calls == 0
    with pytest.raises(ConfigError, match=r"night\.auto_adopt"):
        load_config(tmp_path, chosen_by_model={"night.auto_adopt": True})


@pytest.mark.parametrize("tool", ["status", "mine", "harvest", "run"])
def test_a_folder_holding_the_home_is_no_project(tool: str) -> None:
    for folder in ("/", str(Path.home()), str(Path.home().parent)):
        result = _call(build_server(), tool, {"project": folder})
        assert result.is_error and "home" in _text(result), (folder, _text(result))


def test_a_project_outside_the_declared_workspace_is_refused(
    tmp_path: Path, fake_scheduler: object
) -> None:
    workspace = tmp_path / "repo"
    other = tmp_path / "someone-elses"
    (workspace / "sub").mkdir(parents=True)
    other.mkdir()
    (workspace / "link").symlink_to(other)
    server = build_server()
    refused = _call(server, "status", {"project": str(other)}, root=workspace)
    assert refused.is_error and "outside the workspace" in _text(refused)
    linked = _call(server, "status", {"project": str(workspace / "link")}, root=workspace)
    assert linked.is_error and "outside the workspace" in _text(linked)
    for inside in (workspace, workspace / "sub"):
        served = _call(server, "status", {"project": str(inside)}, root=workspace)
        assert not served.is_error, _text(served)


def test_the_servers_own_project_bounds_a_client_without_roots(
    tmp_path: Path, fake_scheduler: object
) -> None:
    workspace, other = tmp_path / "repo", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    server = build_server(default_project=workspace)
    assert not _call(server, "status", {}).is_error
    refused = _call(server, "status", {"project": str(other)})
    assert refused.is_error and "outside the workspace" in _text(refused)
