"""Gather tonight's tasks: harvest the new sessions, then mine them into task families.

The night's first two stages, kept apart from its orchestration (:mod:`.night`). :func:`harvest`
streams each new session's candidates into a ``CandidateStream`` as the harvest reads it, so a
night never holds the whole history, and returns the harvest index still open, locked and
uncommitted: the night commits it last, once its report is saved, so a killed night re-reads
its sessions. :func:`mine` turns the stream into the miner's result (families, tasks, recall),
storing the candidates in the archive, which de-duplicates those a killed night already stored.
Both report progress as ``(stage, done, total)``; neither prints.

How far back a night reads is fixed by the first night: ``night.since`` before it (:func:`window`).
A later night reads what is new since the last, never older sessions the first night's window
left unread (it used to read the whole history on the second night); widening ``night.since``
later reaches further back, once. The night history's times are the only clock it trusts, and
only as far as they agree with tonight's (:func:`nights_began`).
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from skillopt_sleep.engine.config import SleepConfig
from skillopt_sleep.engine.state import ProjectState

if TYPE_CHECKING:
    from skillopt_sleep.engine.night import Progress
    from skillopt_sleep.mine.candidates import CandidateStream


def window(state: ProjectState, config: SleepConfig, now: datetime) -> timedelta | None:
    """How far back from ``now`` tonight's harvest reads: to ``night.since`` before the nights
    began (None: no limit), or ``night.since`` alone before the first night."""
    from skillopt_sleep.harvest import parse_since

    since = parse_since(config.night.since)
    if since is None:
        return None
    began = nights_began(state, now)
    return since if began is None else since + (now - began)


def nights_began(state: ProjectState, now: datetime) -> datetime | None:
    """The earliest time a night of the history started, among those not after ``now``; None
    without one. Not just the first night's: a night that ran while the clock was behind (and
    was corrected since) moves it back, so the sessions written on that clock, whose times are
    just as far behind, are read rather than left out of every later window. A time after
    ``now`` was written by a clock that ran ahead: it would end the window before the sessions
    it has not read yet, so it is no start (the window slid with ``now``, leaving every
    session older than ``night.since`` unread for good)."""
    from skillopt_sleep.engine.state import read_lines

    began: datetime | None = None
    for night in read_lines(state.history_path, skip_bad=True):
        try:
            started = datetime.fromisoformat(str(night.get("started_at")))
        except ValueError:
            continue
        if started.tzinfo is not None and started <= now and (began is None or started < began):
            began = started
    return began


def harvest(
    state: ProjectState,
    config: SleepConfig,
    since: timedelta | None,
    stack: contextlib.ExitStack,
    progress: Progress,
    now: datetime,
) -> tuple[CandidateStream, Any]:
    """The candidates of the sessions new since the last committed night and within ``since``
    (:func:`window`, from the night's ``now``), taken from each session as the harvest streams it (``progress("harvest", files read, files to read)``). The
    index stays open on ``stack``, locked against a concurrent ``harvest --commit``, and
    uncommitted until the night is saved; a failed harvest rolls it back."""
    from skillopt_sleep.engine.records import NIGHT_COMMAND
    from skillopt_sleep.harvest import HarvestRun, held_for, index_location, open_index
    from skillopt_sleep.mine.candidates import CandidateStream

    # locked before it is opened: a `harvest --commit` may hold SQLite's write lock meanwhile
    location = index_location(state.project, state.root)
    stack.enter_context(held_for(location, commit=True, what=NIGHT_COMMAND))
    index = stack.enter_context(open_index(state.project, state.root))
    found = CandidateStream()
    files: dict[str, tuple[int, int]] = {}  # source -> (files read, files to read)

    def tick(source: str, done: int, total: int) -> None:
        files[source] = (done, total)
        progress("harvest", sum(d for d, _ in files.values()), sum(t for _, t in files.values()))

    try:
        for session in HarvestRun(
            state.project,
            config.night.sources,
            since,
            index,
            homes=config.homes,
            progress=tick,
            now=now.timestamp(),
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
