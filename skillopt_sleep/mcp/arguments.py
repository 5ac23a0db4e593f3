"""The MCP tools' argument types and annotations, with choices taken from the engine's registries
(harvest sources, backends), so a tool's input schema refuses what the engine does not know.

No ``from __future__ import annotations``: the SDK reads these types to build the schemas.
"""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, Resolve
from mcp.types import ListRootsResult, ToolAnnotations
from pydantic import Field

from skillopt_sleep.mcp._sdk import ask_roots
from skillopt_sleep.mcp.views import REPORT_JSON_CHARS


def _source_names() -> tuple[str, ...]:
    from skillopt_sleep.harvest import load_sources

    return tuple(load_sources().names())


def _backend_names() -> tuple[str, ...]:
    from skillopt_core.backends import BACKENDS, _load_builtin_backends

    _load_builtin_backends()  # registers the built-in backends (their SDKs stay unimported)
    return tuple(BACKENDS.names())


SourceName = Literal[_source_names()]  # type: ignore[valid-type]
BACKEND_PATTERN = rf"^({'|'.join(_backend_names())})(:[^\s]+)?$"

Project = Annotated[
    str | None,
    Field(description="Absolute project root (default: the client's workspace root)."),
]
ProposalId = Annotated[
    str | None, Field(description="Proposal id (a night id); default: the latest that applies.")
]
Backend = Annotated[
    str | None,
    Field(
        pattern=BACKEND_PATTERN,
        description="One backend for both roles, NAME[:MODEL] (default: the configured one).",
    ),
]
Sources = Annotated[
    list[SourceName] | None,  # type: ignore[valid-type]
    Field(description="Which harnesses' sessions to read (default: the configured ones)."),
]
MaxTasks = Annotated[int | None, Field(ge=1, description="Most training tasks replayed.")]
Since = Annotated[
    str | None,
    Field(
        max_length=32,
        description="How far back before the first night the nights read sessions, such as 30d "
        "or 12h (default: night.since in the config, 30d). It does not replace the 'new since "
        "the last night' filter: a later night still reads only what is new since the last, and "
        "a longer window than before reaches further back once.",
    ),
]
HarvestSince = Annotated[
    str | None,
    Field(
        max_length=32,
        description="Only sessions active in this window, such as 7d or 12h, among those new "
        "since the last night (default: the window a night would read, night.since back from "
        "the first night).",
    ),
]
MaxCalls = Annotated[
    int | None,
    Field(
        ge=0,
        description="Hard limit on model calls tonight (default: the configured one); it may "
        "only lower the configured limit. 0 means NO limit, not no calls: refused unless the "
        "configured limit is 0 too.",
    ),
]
ProposalLimit = Annotated[
    int, Field(ge=1, le=200, description="Most proposals listed, the newest.")
]
FamilyLimit = Annotated[int, Field(ge=1, le=200, description="Most families listed, the largest.")]
ReportFormat = Annotated[
    Literal["md", "json"],
    Field(
        description="md: the report as Markdown, bounded in size (default); json: every record, "
        f"up to {REPORT_JSON_CHARS:,} characters (a bigger one gives its note and the path to "
        "read instead).",
    ),
]
JobId = Annotated[str | None, Field(description="Job id from run / dry_run.")]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
STAGES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
CHANGES_LIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
MARKS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
STOPS = MARKS  # cancelling ends a night's process; nothing durable is lost, a second call is moot


async def workspace_roots(ctx: Context) -> Any:
    """The client's roots, asked for even when a call names its ``project``: a model chose that
    argument, and it must lie inside the workspace the client declared (see
    :func:`skillopt_sleep.mcp.workspace.resolve_project`)."""
    return await ask_roots(ctx)


Roots = Annotated[ListRootsResult | None, Resolve(workspace_roots)]
