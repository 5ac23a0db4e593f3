"""The ``skillopt_sleep`` MCP server: the nightly engine's library API as MCP tools and resources.

Thin over :mod:`skillopt_sleep.engine` (no engine logic here). Every tool has an input schema whose
choices come from the engine's registries (harvest sources, backends) and which refuses an
argument it does not list, an output schema taken from the engine's records, and read-only /
destructive annotations; what a tool returns stays small (lists are cut to the newest or largest,
with their count). ``run`` and ``dry_run`` start the
night in a detached process and return a job at once; ``night_status`` reports its progress from
the job's file, so it outlives the session (see :mod:`skillopt_sleep.mcp.jobs`).
The project defaults to the client's workspace root (see :mod:`skillopt_sleep.mcp.workspace`).
Engine errors become error results that carry the exit code and the fix, never a crash.

The tools live in groups, each registering on the server's own ``ToolContext`` (see
:mod:`._context`): before a night (:mod:`._tools_preview`), the night itself
(:mod:`._tools_night`) and what it staged (:mod:`._tools_proposals`); the resources in
:mod:`._resources`. The groups register in the order clients list the tools.
"""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from skillopt_sleep import __version__
from skillopt_sleep.mcp import _resources, _tools_night, _tools_preview, _tools_proposals
from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp.jobs import Jobs, NightRunner
from skillopt_sleep.mcp.stdio import serve_stdio

INSTRUCTIONS = (
    "SkillOpt-Sleep improves this project's skill files from the user's past agent sessions. "
    "Start with `status`. `dry_run` / `run` start a night in the background and return a job: "
    "poll `night_status` until it is finished. A run only stages a proposal; show the user "
    "`report`, and call `adopt` only when the user explicitly asks for it (`reject` declines, "
    "`rollback` undoes an adopt; `refused` lists the edits no night proposes again, and only "
    "the user can forget one, in a terminal). Pass `project`, the absolute path of the user's "
    "repository, "
    "unless the client declares it as a workspace root. "
    + (
        "A night runs inside this server on Windows: it stops if the session ends before "
        "`night_status` says it finished, so for long nights suggest `skillopt-sleep schedule`. "
        if sys.platform == "win32"
        else "A night runs in a process of its own: it goes on if the session ends or the "
        "server restarts, and `night_status` (by job id, or the project's latest) reports it in "
        "a later session too; `cancel_night` stops it without touching live files. "
    )
    + "Where a result says to run `skillopt-sleep X`, use the matching tool (X with - as _), "
    "not a shell."
)


def build_server(
    *,
    default_project: Path | None = None,
    runner: NightRunner | None = None,
    jobs: Jobs | None = None,
) -> MCPServer:
    """A fresh server. ``default_project``: the project of a call that names none when the
    client declares no root, and of the resources (which carry no arguments); ``runner``
    replaces ``run_night`` in tests (the night then runs in a thread of the server); ``jobs``
    replaces the background nights altogether (tests: another night process)."""
    ctx = ToolContext(default_project, jobs or Jobs(runner))
    _tools_preview.register(ctx)
    _tools_night.register(ctx)
    _tools_proposals.register(ctx)
    server = MCPServer(
        "skillopt_sleep",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=ctx.tools,
    )
    _resources.register(server, ctx)
    return server


def serve(default_project: Path | None = None) -> None:
    """Run the server on stdio until the client closes it; a line that is no JSON-RPC message
    gets the JSON-RPC error (see :mod:`skillopt_sleep.mcp.stdio`)."""
    serve_stdio(build_server(default_project=default_project))
