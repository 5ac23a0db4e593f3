"""The tools that look before a night: the project's state, and the new sessions a night would
read and the task families it would mine from them. Read-only; nothing is replayed.

No ``from __future__ import annotations``: the SDK reads the tools' annotations for the schemas.
"""

from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.engine.config import SleepConfig
from skillopt_sleep.engine.records import Status
from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp.arguments import (
    READ_ONLY,
    FamilyLimit,
    HarvestSince,
    Project,
    Roots,
    Sources,
)
from skillopt_sleep.mcp.views import FamilyPreview, HarvestView, MineView


def _index(root: Path) -> str | None:
    """The project's harvest index (None), or a throw-away one in memory while it has none: a
    preview, read-only, never creates a project's state (an empty index reads the same)."""
    from skillopt_sleep.engine import ProjectState

    return None if ProjectState(root).index_path.exists() else ":memory:"


def _night_window(root: Path, config: SleepConfig) -> timedelta | None:
    """How far back tonight's night would read (``night.since`` before the first night): a
    preview without ``since`` shows what a night would read, not every session however old."""
    from skillopt_sleep.engine import ProjectState
    from skillopt_sleep.engine.gather import window

    return window(ProjectState(root), config, datetime.now(timezone.utc))


def register(ctx: ToolContext) -> None:
    """Add ``status``, ``harvest`` and ``mine`` to ``ctx.tools``."""

    @ctx.tool(READ_ONLY)
    def status(roots: Roots, project: Project = None) -> Status:
        """The last nights, pending proposals, schedule, backends and archive of the project
        (fast, reads small state files only)."""
        from skillopt_sleep.engine import status as engine_status

        return engine_status(ctx.project_of(project, roots))

    @ctx.tool(READ_ONLY)
    def harvest(
        roots: Roots,
        project: Project = None,
        sources: Sources = None,
        since: HarvestSince = None,
    ) -> HarvestView:
        """Preview the new sessions a night would read, per harness (the index is not advanced)."""
        from skillopt_sleep.engine import load_config, preview_sessions

        root = ctx.project_of(project, roots)
        config = load_config(root)
        window = since or _night_window(root, config)
        result = preview_sessions(
            root, config, sources=sources, since=window, index_dir=_index(root)
        )
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

    @ctx.tool(READ_ONLY)
    def mine(
        roots: Roots, project: Project = None, sources: Sources = None, limit: FamilyLimit = 20
    ) -> MineView:
        """Preview the recurring task families in the new sessions, the largest first, with a
        few of their requests (nothing is replayed); `family_count` counts them all."""
        from skillopt_sleep.engine import load_config, preview_families

        root = ctx.project_of(project, roots)
        config = load_config(root)
        window = _night_window(root, config)
        mined = preview_families(
            root, config, sources=sources, since=window, index_dir=_index(root)
        )
        largest = sorted(mined.families, key=lambda f: -f.size)
        families = tuple(FamilyPreview.of(f) for f in largest[:limit])
        sessions = int(mined.stats.get("sessions", 0))
        return MineView(str(root), sessions, mined.embedder_name, len(largest), families)
