"""What the Codex install approves: exactly the MCP tools Codex would ask about that never change a
live file, so `codex exec` (approval policy `never`, which refuses every call that asks) can start
a night, while `adopt` and `rollback` keep asking. No Codex CLI needed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
import tomli_w
from mcp import Client

from skillopt_sleep.install import Homes, install
from skillopt_sleep.install import codex as codex_install
from skillopt_sleep.install.codex import PRE_APPROVED, mcp_block
from skillopt_sleep.mcp import build_server

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LIVE = {"adopt", "rollback"}


def codex_asks(annotations: types.ToolAnnotations | None) -> bool:
    """Codex's rule for a tool of a user's MCP server (`requires_mcp_tool_approval` in
    codex-rs/core/src/mcp_tool_call.rs, 0.171): a destructive tool asks, a read-only one does
    not, any other asks unless it declares itself both non-destructive and closed-world."""
    if annotations is None:
        return False  # no annotations and no per-tool setting: Codex runs it
    if annotations.destructive_hint is True:
        return True
    if annotations.read_only_hint is True:
        return False
    return annotations.destructive_hint is not False or annotations.open_world_hint is not False


def _server_tools() -> dict[str, types.Tool]:
    async def go() -> list[types.Tool]:
        async with Client(build_server()) as client:
            return (await client.list_tools()).tools

    return {t.name: t for t in anyio.run(go)}


def _approvals(config: dict[str, Any]) -> dict[str, str]:
    tools = config["mcp_servers"]["skillopt_sleep"].get("tools", {})
    return {name: table["approval_mode"] for name, table in tools.items()}


def test_the_block_approves_exactly_the_tools_that_only_stage() -> None:
    assert _approvals(tomllib.loads(mcp_block())) == {"dry_run": "approve", "run": "approve"}
    assert not LIVE & set(PRE_APPROVED)


def test_approved_are_the_tools_codex_would_ask_about_that_never_change_live_files() -> None:
    tools = _server_tools()
    asked = {name for name, tool in tools.items() if codex_asks(tool.annotations)}
    assert asked >= LIVE, "adopt and rollback must keep asking"
    assert all(tools[name].annotations.destructive_hint for name in LIVE)  # type: ignore[union-attr]
    assert set(PRE_APPROVED) == asked - LIVE


def test_install_writes_the_approvals_and_updates_an_older_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    homes = Homes.from_env({}, tmp_path / "home")
    config = homes.codex / "config.toml"
    without = tomllib.loads(mcp_block())
    del without["mcp_servers"]["skillopt_sleep"]["tools"]
    with monkeypatch.context() as patch:  # what an install before the approvals wrote
        patch.setattr(codex_install, "mcp_block", lambda: tomli_w.dumps(without).strip())
        install(["codex"], homes=homes, claude_plugin=False)
    assert _approvals(tomllib.loads(config.read_text())) == {}

    (action,) = [
        a for a in install(["codex"], homes=homes, claude_plugin=False) if a.path == str(config)
    ]
    assert action.verb == "update"
    assert _approvals(tomllib.loads(config.read_text())) == dict.fromkeys(PRE_APPROVED, "approve")
