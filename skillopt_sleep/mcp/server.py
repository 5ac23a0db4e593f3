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

Annotations here are evaluated at import (no ``from __future__ import annotations``): the SDK
reads them to build the schemas, and the choices are computed from the registries below.
"""

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ListRootsResult, ToolAnnotations

from skillopt_core.errors import EXIT_ERROR, SkillOptError, UsageError
from skillopt_sleep import __version__
from skillopt_sleep._display import displayable
from skillopt_sleep.engine.records import AdoptResult, Status
from skillopt_sleep.mcp._sdk import known_arguments_only
from skillopt_sleep.mcp.arguments import (
    CHANGES_LIVE,
    MARKS,
    READ_ONLY,
    STAGES,
    STOPS,
    Backend,
    FamilyLimit,
    JobId,
    MaxCalls,
    MaxTasks,
    Project,
    ProposalId,
    ProposalLimit,
    Roots,
    Since,
    Sources,
)
from skillopt_sleep.mcp.jobs import Jobs, JobView, NightRunner
from skillopt_sleep.mcp.stdio import serve_stdio
from skillopt_sleep.mcp.views import (
    FamilyPreview,
    HarvestView,
    MineView,
    ProposalsView,
    RefusedBy,
    RefusedLimit,
    RefusedView,
    ReportView,
)
from skillopt_sleep.mcp.workspace import resolve_project, root_paths

F = TypeVar("F", bound=Callable[..., Any])

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


def os_error_text(exc: OSError) -> str:
    """What an OSError from a path the client gave says: the reason and the path, shortened (a
    path too long for the file system is thousands of characters) and with controls escaped."""
    name = str(exc.filename) if exc.filename is not None else ""
    if len(name) > 120:
        name = f"{name[:100]}... ({len(name)} characters)"
    reason = exc.strerror or exc.__class__.__name__
    return displayable(f"cannot use {name}: {reason}" if name else reason)


def engine_errors(tool: F, error: type[Exception] = ToolError) -> F:
    """Engine errors -> an ``error`` (a tool's error result, or a resource's ``ResourceError``)
    naming the exit code and the fix; an OSError (a path the client gave that the file system
    refuses, e.g. too long) -> one naming the reason. Never a bare "Error executing tool"."""

    @functools.wraps(tool)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except SkillOptError as exc:
            raise error(f"{exc} (exit code {exc.exit_code})") from None
        except KeyError as exc:
            raise error(str(exc.args[0] if exc.args else exc)) from None
        except OSError as exc:
            raise error(f"{os_error_text(exc)} (exit code {EXIT_ERROR})") from None

    return wrapper  # type: ignore[return-value]


def _overrides(
    backend: str | None,
    sources: list[str] | None,
    max_tasks: int | None,
    max_calls: int | None,
    since: str | None,
) -> dict[str, Any]:
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
    jobs = jobs or Jobs(runner)
    seen: dict[str, Path] = {}
    tools: list[Tool] = []

    def tool(annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register ``fn`` with its docstring as one-line description, engine errors mapped and
        unknown arguments refused."""

        def register(fn: F) -> F:
            description = " ".join((fn.__doc__ or "").split())
            made = Tool.from_function(
                engine_errors(fn), description=description, annotations=annotations
            )
            tools.append(known_arguments_only(made))
            return fn

        return register

    def project_of(project: str | None, roots: ListRootsResult | None) -> Path:
        """The call's ``project``, else the client's first root, else the server's --project."""
        paths = root_paths(roots) if roots else ()
        path = resolve_project(project, paths, default_project)
        seen["last"] = path
        return path

    @tool(READ_ONLY)
    def status(roots: Roots, project: Project = None) -> Status:
        """The last nights, pending proposals, schedule, backends and archive of the project
        (fast, reads small state files only)."""
        from skillopt_sleep.engine import status as engine_status

        return engine_status(project_of(project, roots))

    @tool(READ_ONLY)
    def harvest(
        roots: Roots,
        project: Project = None,
        sources: Sources = None,
        since: Since = None,
    ) -> HarvestView:
        """Preview the new sessions a night would read, per harness (the index is not advanced)."""
        from skillopt_sleep.engine import preview_sessions

        root = project_of(project, roots)
        result = preview_sessions(root, sources=sources, since=since)
        per_harness = {
            name: {
                "sessions": s.sessions,
                "turns": s.turns,
                "tool_errors": s.tool_errors,
                "corrections": s.corrections,
            }
            for name, s in result.stats.items()
        }
        return HarvestView(str(root), len(result.sessions), per_harness)

    @tool(READ_ONLY)
    def mine(
        roots: Roots, project: Project = None, sources: Sources = None, limit: FamilyLimit = 20
    ) -> MineView:
        """Preview the recurring task families in the new sessions, the largest first, with a
        few of their requests (nothing is replayed); `family_count` counts them all."""
        from skillopt_sleep.engine import preview_families

        root = project_of(project, roots)
        mined = preview_families(root, sources=sources)
        largest = sorted(mined.families, key=lambda f: -f.size)
        families = tuple(FamilyPreview.of(f) for f in largest[:limit])
        sessions = int(mined.stats.get("sessions", 0))
        return MineView(str(root), sessions, mined.embedder_name, len(largest), families)

    def start(
        roots: ListRootsResult | None,
        project: str | None,
        dry_run: bool,
        overrides: dict[str, Any],
    ) -> JobView:
        return jobs.start(project_of(project, roots), overrides, dry_run=dry_run)

    @tool(STAGES)
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
        overrides = _overrides(backend, sources, max_tasks, max_calls, since)
        return start(roots, project, True, overrides)

    @tool(STAGES)
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
        overrides = _overrides(backend, sources, max_tasks, max_calls, since)
        return start(roots, project, False, overrides)

    def job_of(job_id: str | None, project: str | None, roots: ListRootsResult | None) -> str:
        """The job named, else the project's latest."""
        if job_id:
            return job_id
        root = project_of(project, roots)
        latest = jobs.latest(root)
        if latest is None:
            raise ToolError(f"no night was started over MCP for {root}; call run first")
        return latest.id

    @tool(READ_ONLY)
    def night_status(roots: Roots, job_id: JobId = None, project: Project = None) -> JobView:
        """Progress of a background night (default: the latest one of the project), from any
        session: a night goes on when the session that started it ends."""
        return jobs.get(job_of(job_id, project, roots))

    @tool(STOPS)
    def cancel_night(roots: Roots, job_id: JobId = None, project: Project = None) -> JobView:
        """Stop a running night (default: the project's latest). Live files are never touched
        and nothing is staged; a night already staging its proposal finishes instead. Poll
        `night_status` until it has ended."""
        return jobs.cancel(job_of(job_id, project, roots))

    @tool(READ_ONLY)
    def proposals(
        roots: Roots, project: Project = None, limit: ProposalLimit = 20
    ) -> ProposalsView:
        """The newest staged proposals and their state (pending, adopted, rejected, rolled back,
        superseded), oldest first; `total` counts them all (adopted ones are kept for rollback,
        so they add up night after night). `status` lists every pending one."""
        from skillopt_sleep.engine import list_proposals

        root = project_of(project, roots)
        every = list_proposals(root)
        return ProposalsView(str(root), len(every), tuple(every[-limit:]))

    @tool(READ_ONLY)
    def refused(
        roots: Roots, project: Project = None, by: RefusedBy = None, limit: RefusedLimit = 20
    ) -> RefusedView:
        """The edits no night may propose again, by skill file: every one the user refused
        (rejected or rolled back proposals) up to `limit`, then the gate's newest of each file,
        each with its id, who refused it and the gate's delta; `total` counts them all. Only
        the user may forget one, in a terminal."""
        from skillopt_sleep.engine.api import refused as engine_refused

        root = project_of(project, roots)
        return RefusedView.of(str(root), engine_refused(root, by=by), limit)

    @tool(READ_ONLY)
    def report(
        roots: Roots,
        project: Project = None,
        proposal: ProposalId = None,
        format: Literal["md", "json"] = "md",
    ) -> ReportView:
        """A staged proposal's report: what changed, the held-out scores, accepted and rejected
        edits, as staged. Without a proposal id it is the latest proposal, which may be an
        older night's: `state` says whether it is still pending (the text, written at staging,
        always says to adopt or reject it), and `note` (also the text's first line) which
        proposal it is and what the latest night did if it staged nothing. Tell the user the note
        first. A JSON report too big for a tool result gives only its note and `path`."""
        from skillopt_sleep.engine import read_report

        return ReportView.of(read_report(project_of(project, roots), proposal, format))

    @tool(CHANGES_LIVE)
    def adopt(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Replace the live skill files with a staged proposal (atomic, backed up). Only when the
        user explicitly asks; refuses a live file that changed since staging."""
        from skillopt_sleep.engine import adopt as engine_adopt

        return engine_adopt(project_of(project, roots), proposal)

    @tool(MARKS)
    def reject(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Decline a proposal; its edits are remembered and not proposed again."""
        from skillopt_sleep.engine import reject as engine_reject

        return engine_reject(project_of(project, roots), proposal)

    @tool(CHANGES_LIVE)
    def rollback(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Restore the files an adopted proposal replaced, byte for byte."""
        from skillopt_sleep.engine import rollback as engine_rollback

        return engine_rollback(project_of(project, roots), proposal)

    server = MCPServer(
        "skillopt_sleep",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        tools=tools,
    )

    def resource_project() -> Path:
        if default_project is not None:
            return default_project
        if "last" in seen:
            return seen["last"]
        return resolve_project(None)

    def resource(uri: str, name: str, description: str) -> Callable[[F], F]:
        """Register a markdown resource whose engine errors reach the client with their reason."""

        def register(fn: F) -> F:
            server.resource(uri, name=name, description=description, mime_type="text/markdown")(
                engine_errors(fn, ResourceError)
            )
            return fn

        return register

    @resource(
        "skillopt-sleep://report/{proposal}",
        "report",
        "A staged proposal's report (markdown); proposal 'latest' is the newest.",
    )
    def report_resource(proposal: str) -> str:
        from skillopt_sleep.engine import read_report

        chosen = None if proposal == "latest" else proposal
        return read_report(resource_project(), chosen, "md").text

    @resource(
        "skillopt-sleep://skill/{name}",
        "skill",
        "A skill file of the project (or the user's) that nights improve.",
    )
    def skill_resource(name: str) -> str:
        from skillopt_sleep.skills import find_skills

        found = find_skills(resource_project(), Path.home())
        for skill in found:
            if skill.name == name:
                # a stray byte (a file saved in another encoding) shows as U+FFFD, no failed read
                return skill.path.read_bytes().decode("utf-8", errors="replace")
        known = ", ".join(sorted({s.name for s in found})) or "none"
        raise UsageError(f"no skill named {displayable(name)!r} (known: {known})")

    return server


def serve(default_project: Path | None = None) -> None:
    """Run the server on stdio until the client closes it; a line that is no JSON-RPC message
    gets the JSON-RPC error (see :mod:`skillopt_sleep.mcp.stdio`)."""
    serve_stdio(build_server(default_project=default_project))
