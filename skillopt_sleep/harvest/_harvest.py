"""The harvest run: discover files, read only what is new, fold records, assemble sessions.

I/O lives here and in the sources' ``discover``; parsing and assembly are pure. The index is
advanced per file for exactly the bytes that were read, and committed once at the end.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from skillopt_sleep.harvest._build import assemble, in_project
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._index import FileRow, HarvestIndex
from skillopt_sleep.harvest._lines import continues, stat_id, unchanged
from skillopt_sleep.harvest._reading import ReadJob, read_all
from skillopt_sleep.harvest._registry import HarvestConfig, Source, select
from skillopt_sleep.harvest._stats import HarvestStats, Tally
from skillopt_sleep.records import Session

Progress = Callable[[str, int, int], None]  # (source name, files done, files total)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class HarvestResult:
    sessions: tuple[Session, ...]
    stats: Mapping[str, HarvestStats]  # per harness


def parse_since(value: str | timedelta | None) -> timedelta | None:
    """``7d``, ``12h``, ``30m``, ``2w``, ``45s`` (or a timedelta) -> timedelta."""
    if value is None or isinstance(value, timedelta):
        return value
    match = _DURATION.match(value)
    if not match:
        raise ValueError(f"not a duration: {value!r} (use e.g. 7d, 12h, 30m, 2w)")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2).lower()])


def _plan(
    source: Source,
    paths: list[Path],
    index: HarvestIndex,
    cutoff: float | None,
    tally: Tally,
) -> list[ReadJob]:
    """What to read: new files from the start, grown ones from their offset, nothing else."""
    rows = index.rows(source.name)
    jobs: list[ReadJob] = []
    for path in paths:
        tally.files_seen += 1
        name = str(path)
        try:
            fid = stat_id(path)
            row = rows.get(name)
            if row is not None and unchanged(row.fid, fid):
                tally.files_unchanged += 1
                continue
            if cutoff is not None and fid.mtime_ns / 1e9 < cutoff:
                tally.skipped_files["older than --since (left unread)"] += 1
                continue
            resumable = row is not None and continues(path, row.fid, fid, row.offset)
        except OSError:
            tally.skipped_files["unreadable file"] += 1
            continue
        if row is not None and resumable:
            if not row.in_scope:
                tally.files_unchanged += 1  # another project's session grew: nothing to read
                continue
            jobs.append(ReadJob(path, fid, row.offset, index.state(name), True))
            continue
        if row is not None:
            tally.skipped_files["rewritten or truncated (re-read)"] += 1
        jobs.append(ReadJob(path, fid, 0, FileState(), False))
    return jobs


def _harvest_source(
    source: Source,
    config: HarvestConfig,
    index: HarvestIndex,
    cutoff: float | None,
    progress: Progress | None,
) -> tuple[list[Session], Tally]:
    tally = Tally(source.harness)
    project = str(config.project)
    try:
        paths = list(source.discover(config))
    except OSError:
        tally.skipped_files["unreadable directory"] += 1
        paths = []
    discovered = {str(p) for p in paths}  # files moved away (e.g. archived) no longer count
    jobs = _plan(source, paths, index, cutoff, tally)
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress:
            progress(source.name, done[0], len(jobs))

    fresh: dict[str, dict[str, FileState]] = {}
    mtimes: dict[str, float] = {}
    for outcome in read_all(source, jobs, config, tick):
        job = outcome.job
        tally.skipped_lines.update(outcome.skipped)
        if outcome.error or outcome.stamped is None:
            tally.skipped_files[outcome.error or "unreadable file"] += 1
            continue
        tally.files_read += 1
        tally.bytes_read += outcome.bytes_read
        state = job.state
        key = source.session_key(state, job.path)
        cwd = source.project_dir(state)
        scoped = not cwd or in_project(cwd, project)
        row = FileRow(str(job.path), source.name, outcome.stamped, outcome.offset, key, scoped)
        index.put(row, state, outcome.packed)
        if not scoped:
            tally.skipped_sessions["other project"] += 1
        elif outcome.bytes_read or not job.resumed:  # a lone half line changes nothing
            fresh.setdefault(key, {})[str(job.path)] = state
            mtimes[key] = max(mtimes.get(key, 0.0), job.fid.mtime_ns / 1e9)
    sessions: list[Session] = []
    for key, states in fresh.items():
        paths_of_key = [p for p in index.session_paths(source.name, key) if p in discovered]
        merged = [states[p] if p in states else index.state(p) for p in paths_of_key]
        cwd = next((source.project_dir(s) for s in merged if source.project_dir(s)), "")
        if not in_project(cwd, project):
            reason = "no working directory recorded" if not cwd else "other project"
            tally.skipped_sessions[reason] += 1
            continue
        built = assemble(source.harness, key, project, merged, paths_of_key, mtimes[key])
        if built.session is None:
            tally.skipped_sessions[built.skipped] += 1
        elif cutoff is not None and built.session.ended_at.timestamp() < cutoff:
            tally.skipped_sessions["older than --since"] += 1
        else:
            sessions.append(built.session)
            tally.count(built.session)
    return sessions, tally


def run(
    project: str | os.PathLike[str],
    sources: Iterable[str] | None,
    since: str | timedelta | None,
    index: HarvestIndex,
    *,
    homes: Mapping[str, os.PathLike[str] | str] | None = None,
    include_sidechains: bool = False,
    progress: Progress | None = None,
    now: float | None = None,
) -> HarvestResult:
    root = Path(project).expanduser().resolve()
    config = HarvestConfig(
        root, {k: Path(v) for k, v in (homes or {}).items()}, include_sidechains=include_sidechains
    )
    window = parse_since(since)
    cutoff = (now if now is not None else time.time()) - window.total_seconds() if window else None
    everything: list[Session] = []
    tallies: dict[str, Tally] = {}
    for source in select(tuple(sources) if sources else None):
        found, tally = _harvest_source(source, config, index, cutoff, progress)
        everything.extend(found)
        if source.harness in tallies:
            tallies[source.harness].merge(tally)
        else:
            tallies[source.harness] = tally
    everything.sort(key=lambda s: (s.started_at, s.harness, s.session_id))
    return HarvestResult(tuple(everything), {h: t.freeze() for h, t in tallies.items()})
