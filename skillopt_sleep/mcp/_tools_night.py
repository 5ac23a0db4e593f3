"""The tools that start and follow a night: ``dry_run`` and ``run`` start it in a background job
and return at once; ``night_status`` and ``cancel_night`` find it again by job id or project.

No ``from __future__ import annotations``: the SDK reads the tools' annotations for the schemas.
"""

from dataclasses import replace
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListRootsResult

from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp.arguments import (
    READ_ONLY,
    STAGES,
    STOPS,
    Backend,
    JobId,
    MaxCalls,
    MaxTasks,
    Project,
    Roots,
    Since,
    Sources,
)
from skillopt_sleep.mcp.jobs import JobView


def night_overrides(
    backend: str | None,
    sources: list[str] | None,
    max_tasks: int | None,
    max_calls: int | None,
    since: str | None,
) -> dict[str, Any]:
    """The config overrides a night started over MCP runs with; it never adopts on its own."""
    out: dict[str, Any] = {"night.auto_adopt": False}  # adopting is the user's explicit call
    if since:
        from skillopt_sleep.harvest import parse_since

        parse_since(since)  # a window the night could not use is refused now, not in its process
        out["night.since"] = since
    if backend:
        out["backends.optimizer"] = out["backends.target"] = backend
    if sources:
        out["night.sources"] = list(sources)
    if max_tasks is not None:
        out["night.max_tasks"] = max_tasks
    if max_calls is not None:
        out["budget.max_calls"] = max_calls
    return out


def register(ctx: ToolContext) -> None:
    """Add ``dry_run``, ``run``, ``night_status`` and ``cancel_night`` to ``ctx.tools``."""

    def start(
        roots: ListRootsResult | None,
        project: str | None,
        dry_run: bool,
        overrides: dict[str, Any],
    ) -> JobView:
        root = ctx.project_of(project, roots, night=True)
        return ctx.jobs.start(root, overrides, dry_run=dry_run)

    @ctx.tool(STAGES)
    def dry_run(
        roots: Roots,
        project: Project = None,
        backend: Backend = None,
        sources: Sources = None,
        max_tasks: MaxTasks = None,
        max_calls: MaxCalls = None,
        since: Since = None,
    ) -> JobView:
        """Start a night that stages nothing, in a background process that outlives this
        session; poll `night_status`."""
        overrides = night_overrides(backend, sources, max_tasks, max_calls, since)
        return start(roots, project, True, overrides)

    @ctx.tool(STAGES)
    def run(
        roots: Roots,
        project: Project = None,
        backend: Backend = None,
        sources: Sources = None,
        max_tasks: MaxTasks = None,
        max_calls: MaxCalls = None,
        since: Since = None,
    ) -> JobView:
        """Start a night in a background process that outlives this session: harvest, mine,
        replay, gated edits, stage a proposal. Never changes live files; poll `night_status`,
        then show `report`. `not_used_from_project` names the project config's keys left out
        (the file is not trusted): tell the user."""
        overrides = night_overrides(backend, sources, max_tasks, max_calls, since)
        return start(roots, project, False, overrides)

    def job_of(job_id: str | None, project: str | None, roots: ListRootsResult | None) -> str:
        """The job named (refused when its project is outside the workspace), else the
        project's latest."""
        if job_id:
            return ctx.job_in_workspace(ctx.jobs.get(job_id), roots).id
        root = ctx.project_of(project, roots)
        latest = ctx.jobs.latest(root)
        if latest is None:
            raise ToolError(f"no night was started over MCP for {root}; call run first")
        return latest.id

    def told(job: JobView) -> JobView:
        """``job`` with its error and its night's message told for the model."""
        report = job.report and replace(job.report, message=ctx.told(job.report.message))
        return replace(job, error=ctx.told(job.error), report=report)

    @ctx.tool(READ_ONLY)
    def night_status(roots: Roots, job_id: JobId = None, project: Project = None) -> JobView:
        """Progress of a background night (default: the latest one of the project), from any
        session: a night goes on when the session that started it ends."""
        return told(ctx.jobs.get(job_of(job_id, project, roots)))

    @ctx.tool(STOPS)
    def cancel_night(roots: Roots, job_id: JobId = None, project: Project = None) -> JobView:
        """Stop a running night (default: the project's latest). Live files are never touched
        and nothing is staged; a night already staging its proposal finishes instead. Poll
        `night_status` until it has ended."""
        return told(ctx.jobs.cancel(job_of(job_id, project, roots)))
