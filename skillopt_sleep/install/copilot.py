"""Copilot: the MCP server in ``$COPILOT_HOME/mcp-config.json`` (and, on request, a project's
``.vscode/mcp.json``), plus the ``skillopt-sleep`` personal skill in ``$COPILOT_HOME/skills``.
Without the MCP server (``--no-mcp``) neither config is written, only the skill.

Copilot CLI reads ``mcpServers`` entries (``type: local``, ``tools: ["*"]``); VS Code reads
``servers`` entries (``type: stdio``) and expands ``${workspaceFolder}``, which tells the server
the project when a client declares no roots. Both name an absolute interpreter. VS Code reads
its file as JSONC while Copilot CLI parses its MCP configs as strict JSON, so only the VS Code
file is read with comments and trailing commas (see :mod:`.edit_json`).
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.install.engine_command import render, shim_cli, shim_mcp
from skillopt_sleep.install.layout import Homes, template
from skillopt_sleep.install.specs import FileSpec, JsonKeySpec, Spec
from skillopt_sleep.mcp import SERVER_NAME

SKILL = "skills/skillopt-sleep/SKILL.md"


def cli_entry() -> dict[str, object]:
    argv = shim_mcp()
    return {"type": "local", "command": argv[0], "args": argv[1:], "env": {}, "tools": ["*"]}


def vscode_entry() -> dict[str, object]:
    argv = shim_mcp()
    return {
        "type": "stdio",
        "command": argv[0],
        "args": argv[1:],
        "env": {"SKILLOPT_SLEEP_PROJECT": "${workspaceFolder}"},
    }


def specs(homes: Homes, *, mcp: bool = True, vscode_project: Path | None = None) -> list[Spec]:
    out: list[Spec] = [
        FileSpec(
            "copilot",
            homes.copilot / "skills" / "skillopt-sleep" / "SKILL.md",
            render(template("copilot", SKILL)),
            engine=shim_cli()[0],
        )
    ]
    if mcp:
        out.append(
            JsonKeySpec(
                "copilot",
                homes.copilot / "mcp-config.json",
                ("mcpServers", SERVER_NAME),
                cli_entry(),
                engine=shim_mcp()[0],
            )
        )
    if mcp and vscode_project is not None:
        out.append(
            JsonKeySpec(
                "copilot",
                vscode_project / ".vscode" / "mcp.json",
                ("servers", SERVER_NAME),
                vscode_entry(),
                engine=shim_mcp()[0],
                jsonc=True,
            )
        )
    return out
