"""Look before a night: the sessions it would read and the families it would find.

Neither advances the harvest index. ``preview_families`` uses a throw-away archive unless one
is given, so a preview never changes what the next night sees.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.engine.config import SleepConfig, load_config

if TYPE_CHECKING:
    from skillopt_sleep.harvest import HarvestResult
    from skillopt_sleep.mine import MineConfig, MineResult

PathLike = str | os.PathLike[str]
Progress = Callable[[str, int, int], None]  # (stage, done, total), as a night reports it


def preview_sessions(
    project: PathLike,
    config: SleepConfig | None = None,
    *,
    sources: list[str] | None = None,
    since: str | timedelta | None = None,
    index_dir: PathLike | None = None,
    progress: Progress | None = None,
) -> HarvestResult:
    """The sessions new since the last committed night (read-only); ``progress`` is told
    ``("harvest", files read, files to read)``."""
    from skillopt_sleep.harvest import harvest

    config = config or load_config(project)
    return harvest(
        Path(project),
        sources=sources or config.night.sources,
        since=since,
        index=index_dir,
        homes=config.homes,
        commit=False,
        progress=progress,
    )


def preview_families(
    project: PathLike,
    config: SleepConfig | None = None,
    *,
    sources: list[str] | None = None,
    since: str | timedelta | None = None,
    index_dir: PathLike | None = None,
    mine_config: MineConfig | None = None,
    archive_path: PathLike | None = None,
    optimizer: Any = None,
    progress: Progress | None = None,
) -> MineResult:
    """The recurring task families in those sessions, and how each would be judged;
    ``progress`` is told ``(stage, done, total)`` as the harvest and the miner go."""
    from skillopt_sleep.mine import MineConfig
    from skillopt_sleep.mine.archive import open_archive

    config = config or load_config(project)
    sessions = preview_sessions(
        project, config, sources=sources, since=since, index_dir=index_dir, progress=progress
    ).sessions
    settings = mine_config or MineConfig(
        embedder=config.mine.embedder, min_family_size=config.mine.min_family_size
    )
    from skillopt_sleep.mine import mine

    with open_archive(archive_path if archive_path is not None else ":memory:") as archive:
        tick = progress or (lambda stage, done, total: None)
        return mine(sessions, archive, settings, optimizer=optimizer, progress=tick)
