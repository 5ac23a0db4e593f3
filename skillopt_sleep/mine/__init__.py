"""Mining: turn a night's sessions into the recurring tasks worth replaying.

``mine(sessions, archive, config, optimizer)`` -> ``MineResult(tasks, families, embedder_name,
stats)``. See ``pipeline`` for the flow and each module for its one job.
"""

from __future__ import annotations

from skillopt_sleep.mine.archive import Archive
from skillopt_sleep.mine.config import FamilySummary, MineConfig, MineResult
from skillopt_sleep.mine.pipeline import mine

__all__ = ["Archive", "FamilySummary", "MineConfig", "MineResult", "mine"]
