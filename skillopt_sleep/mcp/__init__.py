"""The ``skillopt_sleep`` MCP server (``skillopt-sleep mcp``), for Copilot, Codex and Claude Code.

Importing this package is cheap; :func:`build_server` loads the SDK and the engine's registries.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "skillopt_sleep"
"""The name clients register the server under (Copilot shows tools as ``skillopt_sleep-status``)."""


def build_server(*, default_project: Path | None = None, runner: Any = None) -> MCPServer:
    from skillopt_sleep.mcp.server import build_server as build

    return build(default_project=default_project, runner=runner)


def serve(default_project: Path | None = None) -> None:
    from skillopt_sleep.mcp.server import serve as run

    run(default_project)


__all__ = ["SERVER_NAME", "build_server", "serve"]
