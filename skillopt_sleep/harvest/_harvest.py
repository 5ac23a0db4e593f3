"""The harvest run: discover files, read only what is new, fold records, assemble sessions.

I/O lives here and in the sources' ``discover``; parsing and assembly are pure. The index is
advanced per file for exactly the bytes that were read, and committed once at the end.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from skillopt_sleep.harvest._build import Draft, draft, in_project
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._index import FileRow, HarvestIndex
from skillopt_sleep.harvest._lines import continues, stat_id, unchanged
from skillopt_sleep.harvest._reading import ReadJob, ReadOutcome, read_all
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


@dataclass
class _SourceRun:
    """One source's share of a run: what to read, and per session key its latest assembly."""

    source: Source
    tally: Tally
    discovered: set[str]  # files moved away (e.g. archived) no longer count
    jobs: list[ReadJob]
    built: dict[str, Session | str] = field(default_factory=dict)  # str: why it was skipped
    mtimes: dict[str, float] = field(default_factory=dict)


def _prepare(
    source: Source, config: HarvestConfig, index: HarvestIndex, cutoff: float | None
) -> _SourceRun:
    tally = Tally(source.harness)
    try:
        paths = list(source.discover(config))
    except OSError:
        tally.skipped_files["unreadable directory"] += 1
        paths = []
    jobs = _plan(source, paths, index, cutoff, tally)
    return _SourceRun(source, tally, {str(p) for p in paths}, jobs)


def _take(run: _SourceRun, outcome: ReadOutcome, index: HarvestIndex, project: str) -> None:
    """Record one read in the index and (re)assemble its session at once, so assembly overlaps
    the reads still in flight; a later file of the same session assembles it again."""
    source, tally, job = run.source, run.tally, outcome.job
    tally.skipped_lines.update(outcome.skipped)
    if outcome.error or outcome.stamped is None:
        tally.skipped_files[outcome.error or "unreadable file"] += 1
        return
    tally.files_read += 1
    tally.bytes_read += outcome.bytes_read
    path, key = str(job.path), outcome.key
    row = FileRow(path, source.name, outcome.stamped, outcome.offset, key, outcome.scoped)
    index.put(row, job.state, outcome.packed)
    if not outcome.scoped:
        tally.skipped_sessions["other project"] += 1
        return
    if outcome.alone is None:  # a lone half line changes nothing
        return
    run.mtimes[key] = max(run.mtimes.get(key, 0.0), job.fid.mtime_ns / 1e9)
    paths = [p for p in index.session_paths(source.name, key) if p in run.discovered]
    if paths == [path]:
        run.built[key] = _made(outcome.alone)
        return
    merged = [index.state(p) for p in paths]
    cwd = next((source.project_dir(s) for s in merged if source.project_dir(s)), "")
    if not in_project(cwd, project):
        run.built[key] = "no working directory recorded" if not cwd else "other project"
        return
    run.built[key] = _made(draft(source.harness, key, project, merged, paths, run.mtimes[key]))


def _made(built: Draft | str) -> Session | str:
    """Records are made as drafts arrive, while workers still read (a reason passes through)."""
    return built if isinstance(built, str) else built.session()


def _finish(run: _SourceRun, cutoff: float | None) -> list[Session]:
    sessions: list[Session] = []
    for built in run.built.values():
        if isinstance(built, str):
            run.tally.skipped_sessions[built] += 1
        elif cutoff is not None and built.ended_at.timestamp() < cutoff:
            run.tally.skipped_sessions["older than --since"] += 1
        else:
            sessions.append(built)
            run.tally.count(built)
    return sessions


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
    runs = [
        _prepare(source, config, index, cutoff)
        for source in select(tuple(sources) if sources else None)
    ]
    done = [0] * len(runs)

    def tick(number: int) -> None:
        done[number] += 1
        if progress:
            progress(runs[number].source.name, done[number], len(runs[number].jobs))

    groups = [(r.source, r.jobs) for r in runs]
    for number, outcome in read_all(groups, config, tick):
        _take(runs[number], outcome, index, str(root))
    everything: list[Session] = []
    tallies: dict[str, Tally] = {}
    for r in runs:
        everything.extend(_finish(r, cutoff))
        if r.source.harness in tallies:
            tallies[r.source.harness].merge(r.tally)
        else:
            tallies[r.source.harness] = r.tally
    everything.sort(key=lambda s: (s.started_at, s.harness, s.session_id))
    return HarvestResult(tuple(everything), {h: t.freeze() for h, t in tallies.items()})
