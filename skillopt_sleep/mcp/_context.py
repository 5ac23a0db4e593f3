"""What the tool groups share, passed to each rather than kept in globals, so every
``build_server`` gets its own: tool registration, the call's project and the nights."""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcp.server.mcpserver.tools import Tool
from mcp.types import ListRootsResult, ToolAnnotations

from skillopt_sleep.mcp._errors import F, engine_errors, for_model
from skillopt_sleep.mcp._sdk import known_arguments_only
from skillopt_sleep.mcp.jobs import Jobs, JobView
from skillopt_sleep.mcp.workspace import check_job_inside, resolve_project, root_paths, workspace


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
        """Register ``fn`` with its docstring as one-line description, engine errors mapped (and
        told for the model) and unknown arguments refused."""

        def register(fn: F) -> F:
            description = " ".join((fn.__doc__ or "").split())
            made = Tool.from_function(
                engine_errors(fn, told=self.told),
                description=description,
                annotations=annotations,
            )
            self.tools.append(known_arguments_only(made))
            return fn

        return register

    def told(self, text: str) -> str:
        """``text`` with the commands no tool does said to be the user's (:func:`for_model`)."""
        arguments = {t.name: set(t.parameters.get("properties") or ()) for t in self.tools}
        return for_model(text, arguments)

    def project_of(
        self, project: str | None, roots: ListRootsResult | None, night: bool = False
    ) -> Path:
        """The call's ``project``, else the client's first root, else the server's --project;
        with ``night`` (the call starts one), never a folder that holds the home."""
        paths = root_paths(roots) if roots else ()
        path = resolve_project(project, paths, self.default_project, night=night)
        self._last = path
        return path

    def job_in_workspace(self, job: JobView, roots: ListRootsResult | None) -> JobView:
        """``job``, refused when its project lies outside the declared workspace: a job id is
        chosen by a model, as a ``project`` argument is, and is bounded the same way."""
        paths = root_paths(roots) if roots else ()
        check_job_inside(job.id, Path(job.project), paths, self.default_project)
        return job

    def resource_project(self, roots: ListRootsResult | None) -> Path:
        """The resources' project (they carry no arguments): a tool call's without ``project``
        (the client's root, the server's --project or $SKILLOPT_SLEEP_PROJECT); where none of
        these is declared, the last call's."""
        paths = root_paths(roots) if roots else ()
        if self._last is not None and not workspace(paths, self.default_project):
            return self._last
        return resolve_project(None, paths, self.default_project)
