"""Harvest: turn the transcripts the harnesses write into redacted ``Session`` records, incrementally.

    result = harvest("/path/to/project", sources=("claude", "codex"), since="7d")

Sources live in one registry (``_registry.SOURCES``); each harness is one module (``claude``,
``codex``, ...). The index (SQLite in the project's state dir by default) makes a second run read
only new files and appended bytes; it is committed only when ``commit`` is true.

To deliver sessions somewhere before recording them (what ``skillopt-sleep harvest --commit``
does), stream them and commit only after the delivery is safe::

    with held_for(index_location(project), commit=True), open_index(project) as index:
        run = HarvestRun(project, None, "7d", index)
        for session in run:
            deliver(session)
        index.commit()  # a failed or killed delivery leaves the sessions for the next run

The run lock is taken before the index is opened (:func:`held_for`): a night or another
``harvest --commit`` turns a second run away at once, a read-only one included, since it may hold
SQLite's write lock until it ends.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from datetime import timedelta
from pathlib import Path

from skillopt_sleep.harvest._harvest import (
    HarvestResult,
    HarvestRun,
    Progress,
    parse_since,
    run,
    session_ref,
)
from skillopt_sleep.harvest._index import (
    COMMIT_COMMAND,
    INDEX_NAME,
    HarvestIndex,
    refuse_if_running,
    run_lock,
)
from skillopt_sleep.harvest._registry import (
    SOURCES,
    Feed,
    HarvestConfig,
    Source,
    load_sources,
    missing_home_notes,
    missing_homes,
)
from skillopt_sleep.harvest._stats import HarvestStats


def index_location(
    project: str | os.PathLike[str], state_dir: str | os.PathLike[str] | None = None
) -> Path | None:
    """Where :func:`open_index` keeps the project's index (None: a throwaway one in memory)."""
    if str(state_dir) == ":memory:":
        return None
    if state_dir is None:
        from skillopt_sleep.paths import project_state_dir

        state_dir = project_state_dir(project)
    return Path(state_dir) / INDEX_NAME


def open_index(
    project: str | os.PathLike[str], state_dir: str | os.PathLike[str] | None = None
) -> HarvestIndex:
    """The project's index: in ``state_dir`` if given (``":memory:"`` for a throwaway one), else in
    the project's state directory."""
    location = index_location(project, state_dir)
    return HarvestIndex(":memory:" if location is None else location)


def held_for(
    location: Path | None, commit: bool, what: str = COMMIT_COMMAND
) -> contextlib.AbstractContextManager[None]:
    """What a run of the index at ``location`` holds before it opens it: the run lock when it
    commits (``BusyError`` at once if another run holds it); otherwise nothing, and a
    ``BusyError`` naming the holder at once while a night or ``harvest --commit`` runs, rather
    than waiting for its end (see :func:`refuse_if_running`)."""
    if location is None:
        return contextlib.nullcontext()
    if commit:
        return run_lock(location, what)
    refuse_if_running(location)
    return contextlib.nullcontext()


def harvest(
    project: str | os.PathLike[str],
    sources: Iterable[str] | None = None,
    since: str | timedelta | None = None,
    index: HarvestIndex | str | os.PathLike[str] | None = None,
    *,
    homes: Mapping[str, str | os.PathLike[str]] | None = None,
    include_sidechains: bool = False,
    commit: bool = True,
    progress: Progress | None = None,
) -> HarvestResult:
    """Sessions of ``project`` that are new or grew since the last committed harvest.

    ``index``: an open :class:`HarvestIndex`, a state directory, or None for the project's own.
    ``homes``: per-harness home overrides, e.g. ``{"claude": "~/.claude"}``.
    With ``commit``, the index's run lock is held throughout (``BusyError`` if another committing
    harvest or a night holds it); without, a ``BusyError`` at once while one does (an open
    ``index`` given is not checked). Sessions are collected in memory; stream with
    :class:`HarvestRun` instead.
    """
    with contextlib.ExitStack() as stack:
        if isinstance(index, HarvestIndex):
            handle = index
            if commit:
                stack.enter_context(handle.locked())
        else:
            stack.enter_context(held_for(index_location(project, index), commit))
            handle = stack.enter_context(open_index(project, index))
        try:
            result = run(
                project,
                sources,
                since,
                handle,
                homes=homes,
                include_sidechains=include_sidechains,
                progress=progress,
                record=commit,
            )
        except BaseException:
            handle.rollback()
            raise
        if commit:
            handle.commit()
        return result


__all__ = [
    "SOURCES",
    "Feed",
    "HarvestConfig",
    "HarvestIndex",
    "HarvestResult",
    "HarvestRun",
    "HarvestStats",
    "Source",
    "harvest",
    "held_for",
    "index_location",
    "load_sources",
    "missing_home_notes",
    "missing_homes",
    "open_index",
    "parse_since",
    "run",
    "session_ref",
]
