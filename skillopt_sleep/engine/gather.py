"""Gather tonight's tasks: harvest the new sessions, then mine them into task families.

The night's first two stages, kept apart from its orchestration (:mod:`.night`). :func:`harvest`
streams each new session's candidates into a ``CandidateStream`` as the harvest reads it, so a
night never holds the whole history, and returns the harvest index still open, locked and
uncommitted: the night commits it last, once its report is saved, so a killed night re-reads
its sessions. :func:`mine` turns the stream into the miner's result (families, tasks, recall),
storing the candidates in the archive, which de-duplicates those a killed night already stored.
Both report progress as ``(stage, done, total)``; neither prints.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from skillopt_sleep.engine.config import SleepConfig
from skillopt_sleep.engine.state import ProjectState

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import Progress
    from skillopt_sleep.mine.candidates import CandidateStream


def harvest(
    state: ProjectState,
    config: SleepConfig,
    first_night: bool,
    stack: contextlib.ExitStack,
    progress: Progress,
) -> tuple[CandidateStream, Any]:
    """The candidates of the sessions new since the last committed night, taken from each
    session as the harvest streams it (``progress("harvest", files read, files to read)``). The
    index stays open on ``stack``, locked against a concurrent ``harvest --commit``, and
    uncommitted until the night is saved; a failed harvest rolls it back."""
    from skillopt_sleep.harvest import HarvestRun, open_index
    from skillopt_sleep.mine.candidates import CandidateStream

    index = stack.enter_context(open_index(state.project, state.root))
    stack.enter_context(index.locked())
    found = CandidateStream()
    files: dict[str, tuple[int, int]] = {}  # source -> (files read, files to read)

    def tick(source: str, done: int, total: int) -> None:
        files[source] = (done, total)
        progress("harvest", sum(d for d, _ in files.values()), sum(t for _, t in files.values()))

    try:
        since = config.night.since if first_night else None
        for session in HarvestRun(
            state.project, config.night.sources, since, index, homes=config.homes, progress=tick
        ):
            found.add(session)
    except BaseException:
        index.rollback()
        raise
    read = sum(total for _, total in files.values()) or 1  # 1/1: there was nothing to read
    progress("harvest", read, read)
    return found, index


def mine(
    state: ProjectState,
    config: SleepConfig,
    harvested: CandidateStream,
    night_id: str,
    optimizer: Any,
    progress: Progress,
) -> Any:
    """Mine with the optimizer designing the judges and checking families (within its budget)."""
    from skillopt_sleep.mine import MineConfig, mine_candidates
    from skillopt_sleep.mine.archive import open_archive

    mine_config = MineConfig(
        embedder=config.mine.embedder,
        min_family_size=config.mine.min_family_size,
        recall_k=config.mine.recall_k,
        dream_rollouts=config.night.samples,
        confirm_budget=config.mine.confirm_budget,
        night=night_id,
    )
    with open_archive(state.archive_path) as archive:
        found = harvested.candidates()
        return mine_candidates(found, harvested.sessions, archive, mine_config, optimizer, progress)
