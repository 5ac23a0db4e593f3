"""The server's markdown resources: a staged proposal's report and a skill file, read from the
server's project (or the last call's), since a resource carries no arguments.

No ``from __future__ import annotations``: the SDK reads the resources' annotations.
"""

from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from skillopt_core.errors import UsageError
from skillopt_sleep._display import displayable
from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp._errors import F, engine_errors


def register(server: MCPServer, ctx: ToolContext) -> None:
    """Add the ``report`` and ``skill`` resource templates to ``server``."""

    def resource(uri: str, name: str, description: str) -> Callable[[F], F]:
        """Register a markdown resource whose engine errors reach the client with their reason."""

        def add(fn: F) -> F:
            server.resource(uri, name=name, description=description, mime_type="text/markdown")(
                engine_errors(fn, ResourceError)
            )
            return fn

        return add

    @resource(
        "skillopt-sleep://report/{proposal}",
        "report",
        "A staged proposal's report (markdown); proposal 'latest' is the newest.",
    )
    def report_resource(proposal: str) -> str:
        from skillopt_sleep.engine import read_report

        chosen = None if proposal == "latest" else proposal
        return read_report(ctx.resource_project(), chosen, "md").text

    @resource(
        "skillopt-sleep://skill/{name}",
        "skill",
        "A skill file of the project (or the user's) that nights improve.",
    )
    def skill_resource(name: str) -> str:
        from skillopt_sleep.skills import find_skills

        found = find_skills(ctx.resource_project(), Path.home())
        for skill in found:
            if skill.name == name:
                # a stray byte (a file saved in another encoding) shows as U+FFFD, no failed read
                return skill.path.read_bytes().decode("utf-8", errors="replace")
        known = ", ".join(sorted({s.name for s in found})) or "none"
        raise UsageError(f"no skill named {displayable(name)!r} (known: {known})")
