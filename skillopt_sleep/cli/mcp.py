"""`skillopt-sleep mcp`: serve the engine to an agent over MCP (stdio).

Harness configs written by `skillopt-sleep install` start this command with an absolute
interpreter path. A tool call's project is its ``project`` argument, else the client's workspace
root, else ``--project`` (which also names the project the resources show).
"""

from __future__ import annotations

from pathlib import Path

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._run import handle_errors


@app.command("mcp")
@handle_errors
def mcp_command(
    project: Path | None = typer.Option(
        None,
        "--project",
        "-p",
        help="Project when a call names none and the client declares no workspace root "
        "(and the one the resources show).",
    ),
) -> None:
    """Serve the nightly engine as an MCP server on stdio (tools: status, run, report, adopt...)."""
    from skillopt_sleep.mcp import serve

    serve(project.expanduser().resolve() if project is not None else None)
