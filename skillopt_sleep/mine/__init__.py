"""Mining: turn a night's sessions into the recurring tasks worth replaying.

``mine(sessions, archive, config, optimizer)`` -> ``MineResult(tasks, families, embedder_name,
stats)``, or ``mine_candidates`` from candidates already taken from streamed sessions;
``cluster_requests(texts)`` clusters request texts with exactly a night's defaults (for
evaluation on labelled data). See ``pipeline`` for the flow and each module for its one job.
"""

from __future__ import annotations

from skillopt_sleep.mine.archive import Archive
from skillopt_sleep.mine.config import FamilySummary, MineConfig, MineResult
from skillopt_sleep.mine.families import cluster_requests
from skillopt_sleep.mine.pipeline import mine, mine_candidates

__all__ = [
    "Archive",
    "FamilySummary",
    "MineConfig",
    "MineResult",
    "cluster_requests",
    "mine",
    "mine_candidates",
]
