"""Harvest: turn the transcripts the harnesses write into redacted ``Session`` records, incrementally.

    result = harvest("/path/to/project", sources=("claude", "codex"), since="7d")

Sources live in one registry (``_registry.SOURCES``); each harness is one module (``claude``,
``codex``, ...). The index (SQLite in the project's state dir by default) makes a second run read
only new files and appended bytes; it is committed only when ``commit`` is true.

To deliver sessions somewhere before recording them (what ``skillopt-sleep harvest --commit``
does), stream them and commit only after the delivery is safe::

    with open_index(project) as index, index.locked():
        run = HarvestRun(project, None, "7d", index)
        for session in run:
            deliver(session)
        index.commit()  # a failed or killed delivery leaves the sessions for the next run
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
from skillopt_sleep.harvest._index import HarvestIndex
from skillopt_sleep.harvest._registry import SOURCES, Feed, HarvestConfig, Source, load_sources
from skillopt_sleep.harvest._stats import HarvestStats


def open_index(
    project: str | os.PathLike[str], state_dir: str | os.PathLike[str] | None = None
) -> HarvestIndex:
    """The project's index: in ``state_dir`` if given (``":memory:"`` for a throwaway one), else in
    the project's state directory."""
    if str(state_dir) == ":memory:":
        return HarvestIndex(":memory:")
    if state_dir is None:
        from skillopt_sleep.paths import project_state_dir

        state_dir = project_state_dir(project)
    return HarvestIndex.for_state_dir(Path(state_dir))


def _lock_if(index: HarvestIndex, commit: bool) -> contextlib.AbstractContextManager[None]:
    return index.locked() if commit else contextlib.nullcontext()


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
    harvest holds it). Sessions are collected in memory; stream with :class:`HarvestRun` instead.
    """
    owned = not isinstance(index, HarvestIndex)
    handle = index if isinstance(index, HarvestIndex) else open_index(project, index)
    try:
        with _lock_if(handle, commit):
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
    finally:
        if owned:
            handle.close()


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
    "load_sources",
    "open_index",
    "parse_since",
    "run",
    "session_ref",
]
