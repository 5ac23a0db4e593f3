"""What the tool groups share, passed to each rather than kept in globals, so every
``build_server`` gets its own: tool registration, the call's project and the nights."""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcp.server.mcpserver.tools import Tool
from mcp.types import ListRootsResult, ToolAnnotations

from skillopt_sleep.mcp._errors import F, engine_errors
from skillopt_sleep.mcp._sdk import known_arguments_only
from skillopt_sleep.mcp.jobs import Jobs
from skillopt_sleep.mcp.workspace import resolve_project, root_paths


@dataclass
class ToolContext:
    """``default_project``: the project of a call that names none when the client declares no
    root; ``tools``: the tools registered so far, in the order clients list them; the project
    of the last call, for the resources."""

    default_project: Path | None
    jobs: Jobs
    tools: list[Tool] = field(default_factory=list)
    _last: Path | None = field(default=None, init=False, repr=False)

    def tool(self, annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register ``fn`` with its docstring as one-line description, engine errors mapped and
        unknown arguments refused."""

        def register(fn: F) -> F:
            description = " ".join((fn.__doc__ or "").split())
            made = Tool.from_function(
                engine_errors(fn), description=description, annotations=annotations
            )
            self.tools.append(known_arguments_only(made))
            return fn

        return register

    def project_of(self, project: str | None, roots: ListRootsResult | None) -> Path:
        """The call's ``project``, else the client's first root, else the server's --project."""
        paths = root_paths(roots) if roots else ()
        path = resolve_project(project, paths, self.default_project)
        self._last = path
        return path

    def resource_project(self) -> Path:
        """The resources' project (they carry no arguments): the server's, else the last call's."""
        if self.default_project is not None:
            return self.default_project
        if self._last is not None:
            return self._last
        return resolve_project(None)
