"""The server's markdown resources: a staged proposal's report and a skill file, of the project
a tool call without ``project`` would use (the client's root, the server's), since a resource
carries no arguments.

No ``from __future__ import annotations``: the SDK reads the resources' annotations.
"""

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import InputRequiredResult

from skillopt_core.errors import UsageError
from skillopt_sleep._display import displayable
from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp._errors import engine_errors
from skillopt_sleep.mcp._sdk import client_roots

Handler = Callable[..., Awaitable[str | InputRequiredResult]]


def register(server: MCPServer, ctx: ToolContext) -> None:
    """Add the ``report`` and ``skill`` resource templates to ``server``."""

    def resource(uri: str, name: str, description: str) -> Callable[[Handler], Handler]:
        def add(fn: Handler) -> Handler:
            server.resource(uri, name=name, description=description, mime_type="text/markdown")(fn)
            return fn

        return add

    async def in_project(
        context: Context, read: Callable[[Path], str]
    ) -> str | InputRequiredResult:
        """``read`` of the resources' project, its engine errors reaching the client with their
        reason; the client's roots are asked for as a tool call asks for them (a client that
        answers by reading again gets the request first)."""
        roots = await client_roots(context)
        if isinstance(roots, InputRequiredResult):
            return roots

        def work() -> str:
            return read(ctx.resource_project(roots))

        return await anyio.to_thread.run_sync(engine_errors(work, ResourceError, ctx.told))

    @resource(
        "skillopt-sleep://report/{proposal}",
        "report",
        "A staged proposal's report (markdown); proposal 'latest' is the newest.",
    )
    async def report_resource(proposal: str, context: Context) -> str | InputRequiredResult:
        from skillopt_sleep.engine import read_report

        chosen = None if proposal == "latest" else proposal
        return await in_project(
            context, lambda root: ctx.told(read_report(root, chosen, "md").text)
        )

    @resource(
        "skillopt-sleep://skill/{name}",
        "skill",
        "A skill file of the project (or the user's) that nights improve.",
    )
    async def skill_resource(name: str, context: Context) -> str | InputRequiredResult:
        return await in_project(context, functools.partial(_skill_text, name))


def _skill_text(name: str, project: Path) -> str:
    """The skill ``name`` of ``project`` or the user's; a stray byte (a file saved in another
    encoding) shows as U+FFFD, no failed read."""
    from skillopt_sleep.skills import find_skills

    found = find_skills(project, Path.home())
    for skill in found:
        if skill.name == name:
            return skill.path.read_bytes().decode("utf-8", errors="replace")
    known = ", ".join(sorted({s.name for s in found})) or "none"
    raise UsageError(f"no skill named {displayable(name)!r} (known: {known})")
