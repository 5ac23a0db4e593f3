"""`skillopt-sleep mcp`: serve the engine to an agent over MCP (stdio).

Harness configs written by `skillopt-sleep install` start this command with an absolute
interpreter path. Tool calls default to the client's workspace root; ``--project`` only names the
project the resources (report, skills) show when the client declares no root.
"""

from __future__ import annotations

from pathlib import Path

import typer

from skillopt_sleep.cli._app import app


@app.command("mcp")
def mcp_command(
    project: Path | None = typer.Option(
        None,
        "--project",
        "-p",
        help="Project the resources show (tools default to the client's workspace root).",
    ),
) -> None:
    """Serve the nightly engine as an MCP server on stdio (tools: status, run, report, adopt...)."""
    from skillopt_sleep.mcp import serve

    serve(project.expanduser().resolve() if project is not None else None)
