"""The harvest run: discover files, read only what is new, fold records, stream sessions.

I/O lives here and in the sources' ``discover``; parsing and assembly are pure. The index is
advanced per file for exactly the bytes that were read; nothing is recorded until the caller
commits, after it has safely delivered what the run yielded.

A :class:`HarvestRun` yields each session as soon as its file is read, so a consumer (the CLI
writing JSON, the miner) holds one session at a time and memory stays flat however long the
history. Sessions are keyed by identity (harness and session id), not by file: a session is
yielded only when it holds something not delivered before. A grown session comes again with the
whole conversation, so turn indices stay stable for the miner's archive (it keys occurrences by
turn index), and ``first_new`` says where the new part starts; a file moved elsewhere with
nothing new (a Codex rollout archived) does not come again; a file rewritten in place does,
whole. When a later file of the
same run continues a session already yielded, the merged session is yielded again and supersedes
the first (``harvest()`` keeps the last).

A recording run also forgets the files the harnesses deleted (:meth:`HarvestRun._tidy`), so the
index holds the transcripts that exist, not every one ever read.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from skillopt_core.errors import UsageError
from skillopt_sleep.harvest._build import Draft, clean_path, draft, fingerprint
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._gone import Listings, gone, looked_into, place
from skillopt_sleep.harvest._index import Delivered, FileRow, HarvestIndex, digest
from skillopt_sleep.harvest._plan import Plan, discover, plan_reads
from skillopt_sleep.harvest._reading import (
    ReadJob,
    ReadOutcome,
    Render,
    conclude,
    read_all,
    read_file,
)
from skillopt_sleep.harvest._registry import HarvestConfig, Source, select
from skillopt_sleep.harvest._stats import HarvestStats, Tally
from skillopt_sleep.records import Session

Progress = Callable[[str, int, int], None]  # (source name, files done, files total)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_WINDOW = timedelta(days=365 * 200)


@dataclass(frozen=True)
class HarvestResult:
    sessions: tuple[Session, ...]
    stats: Mapping[str, HarvestStats]  # per harness
    # "harness:session_id" -> index of the first turn not delivered before (0: all of it)
    first_new: Mapping[str, int] = field(default_factory=dict)


def parse_since(value: str | timedelta | None) -> timedelta | None:
    """``7d``, ``12h``, ``30m``, ``2w``, ``45s`` (or a timedelta) -> timedelta. ``0d`` is an
    empty window (nothing is that recent), not "no window"; None is no window."""
    if value is None or isinstance(value, timedelta):
        return value
    match = _DURATION.match(value)
    if not match:
        raise UsageError(f"not a duration: {value!r} (use e.g. 7d, 12h, 30m, 2w)")
    seconds = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if seconds > MAX_WINDOW.total_seconds():
        # what leaving it out means is the caller's to say: no window for `harvest`, the
        # configured night.since for a night
        raise UsageError(f"{value} is longer than 200 years; use at most {MAX_WINDOW.days}d")
    return timedelta(seconds=seconds)


def session_ref(session: Session) -> str:
    return f"{session.harness}:{session.session_id}"


@dataclass
class _SourceRun:
    """One source's share of a run: what to read, and what each session key came to."""

    source: Source
    tally: Tally
    discovered: dict[str, str]  # path digest -> path; files moved away no longer count
    complete: bool  # discovery could read every place it looked into
    plan: Plan
    delivered: dict[str, Delivered]  # committed: what each session key emitted before
    reasons: dict[str, str] = field(default_factory=dict)  # key -> why it made no session
    emitted: dict[str, tuple[int, ...]] = field(default_factory=dict)  # key -> its counts
    mtimes: dict[str, float] = field(default_factory=dict)
    rewritten: set[str] = field(default_factory=set)  # keys with a file rewritten in place
    reads: dict[str, ReadJob] = field(default_factory=dict)  # fkey -> how it was read (no state)
    kept: dict[str, FileState] = field(default_factory=dict)  # states of multi-file sessions


class HarvestRun:
    """One harvest of a project: iterate for sessions; ``stats`` and ``first_new`` when done.

    Nothing is recorded in ``index`` until :meth:`HarvestIndex.commit` (the caller's decision,
    made after the sessions are safely delivered). ``record=False``: a look that will never be
    committed; it writes nothing at all, and holds no file's state past its read (a session
    spread over several files is read again when a later file joins it).
    """

    def __init__(
        self,
        project: str | os.PathLike[str],
        sources: Iterable[str] | None,
        since: str | timedelta | None,
        index: HarvestIndex,
        *,
        homes: Mapping[str, os.PathLike[str] | str] | None = None,
        include_sidechains: bool = False,
        progress: Progress | None = None,
        now: float | None = None,
        record: bool = True,
    ) -> None:
        root = Path(project).expanduser().resolve()
        self._record = record
        self._root = str(root)
        self._config = HarvestConfig(
            root,
            {k: Path(v) for k, v in (homes or {}).items()},
            include_sidechains=include_sidechains,
        )
        window = parse_since(since)
        clock = now if now is not None else time.time()
        self._cutoff = clock - window.total_seconds() if window is not None else None
        self._index = index
        self.progress = progress  # may be set until iteration starts
        self._selected = select(tuple(sources) if sources else None)
        self.first_new: dict[str, int] = {}
        self._stats: dict[str, HarvestStats] | None = None

    @property
    def stats(self) -> Mapping[str, HarvestStats]:
        if self._stats is None:
            raise RuntimeError("stats are known once the run has been iterated to the end")
        return self._stats

    def __iter__(self) -> Iterator[Session]:
        for made, _ in self._drafts():
            yield made.session()

    def json(self) -> Iterator[bytes]:
        """The same run, each session as the JSON ``session_json`` gives for it, rendered
        straight from the run's drafts (no records are built: the CLI's ``--json`` path), by
        the worker that read it when its file holds the whole session."""
        from skillopt_sleep.harvest._output import draft_json

        for made, rendered in self._drafts(draft_json):
            yield rendered or draft_json(made)

    def drain(self) -> None:
        """Run to the end for ``stats`` (and the index) alone: the same run as iterating, without
        building the sessions nobody would read."""
        for _ in self._drafts():
            pass

    def _drafts(self, render: Render | None = None) -> Iterator[tuple[Draft, bytes]]:
        """Each session to yield, with its rendering when a worker made it (else ``b""``)."""
        index, cutoff = self._index, self._cutoff
        index.bind(self._root, record=self._record)
        runs: list[_SourceRun] = []
        for source in self._selected:
            tally = Tally(source.harness)
            paths, complete = discover(source, self._config, tally)
            plan = plan_reads(source, paths, index, cutoff, tally)
            runs.append(
                _SourceRun(source, tally, paths, complete, plan, index.delivered(source.name))
            )
        done = [0] * len(runs)

        def tick(number: int) -> None:
            done[number] += 1
            if self.progress:
                self.progress(runs[number].source.name, done[number], len(runs[number].plan.jobs))

        groups = [(r.source, r.plan.jobs) for r in runs]
        outcomes = read_all(groups, self._config, tick, keep_states=self._record, render=render)
        for number, outcome in outcomes:
            run = runs[number]
            built = self._take(run, outcome)
            if built is not None:
                made = self._emit(run, outcome.key, built)
                if made is not None:
                    yield made, outcome.rendered if made is outcome.alone else b""
        tallies: dict[str, Tally] = {}
        for r in runs:
            r.tally.skipped_sessions.update(r.reasons.values())
            if r.source.harness in tallies:
                tallies[r.source.harness].merge(r.tally)
            else:
                tallies[r.source.harness] = r.tally
        self._stats = {h: t.freeze() for h, t in tallies.items()}
        if self._record:
            self._tidy(runs)

    def _tidy(self, runs: list[_SourceRun]) -> None:
        """Record where old rows' files are, and purge the rows of files confirmed deleted
        (:func:`~skillopt_sleep.harvest._gone.gone`), in the run's transaction. Only what a
        source's discovery could read entirely counts; a file outside ``--since`` was
        discovered, so it is kept. A run reads each row's place from the rows it loaded anyway:
        no file is looked at twice, and a folder is listed only when a row's file is missing."""
        deleted: list[str] = []
        for run in runs:
            self._index.set_places(run.plan.unplaced)
            if run.complete and run.plan.absent:
                looked, listing = looked_into(run.discovered.values()), Listings()
                deleted.extend(r.fkey for r in run.plan.absent if gone(r, looked, listing))
        self._index.purge(deleted)

    def _take(self, run: _SourceRun, outcome: ReadOutcome) -> Draft | str | None:
        """Record one read (in the scratch index) and (re)assemble its session at once, so
        assembly overlaps the reads still in flight; a later file of the same session
        assembles it again. None: nothing to assemble."""
        source, tally, job, index = run.source, run.tally, outcome.job, self._index
        if outcome.skipped:  # mostly empty: Counter.update costs a microsecond even so
            tally.skipped_lines.update(outcome.skipped)
        if outcome.error or outcome.stamped is None:
            tally.skipped_files[outcome.error or "unreadable file"] += 1
            return None
        tally.files_read += 1
        tally.bytes_read += outcome.bytes_read
        fkey, key = job.fkey or digest(job.path), outcome.key
        stamped, scoped = outcome.stamped, outcome.scoped
        row = FileRow(fkey, source.name, stamped, outcome.offset, key, scoped, place(job.path))
        index.put(row, job.state, outcome.packed)
        job.state = None  # stored, or to be read again: memory stays flat
        run.reads[fkey] = job
        if not outcome.scoped:
            run.reasons.setdefault(key, "other project")
            return None
        if outcome.alone is None:  # a lone half line changes nothing
            return None
        run.mtimes[key] = max(run.mtimes.get(key, 0.0), job.fid.mtime_ns / 1e9)
        if job.rewritten:
            run.rewritten.add(key)
        fkeys = [k for k in index.session_paths(source.name, key) if k in run.discovered]
        if fkeys == [fkey]:
            return outcome.alone
        merged = [self._state(run, k) for k in fkeys]
        if not any(source.project_dir(s) for s in merged):  # every file here is in scope
            return "no working directory recorded"
        files = [clean_path(run.discovered[k]) for k in fkeys]
        return draft(source.harness, key, clean_path(self._root), merged, files, run.mtimes[key])

    def _state(self, run: _SourceRun, fkey: str) -> FileState:
        """A file's sealed state: from the index, or read again (a read-only run keeps none,
        except those of sessions already seen spread over several files, read once)."""
        if self._index.holds_state(fkey):
            return self._index.state(fkey)
        if fkey in run.kept:
            return run.kept[fkey]
        done = run.reads[fkey]
        start = self._index.state(fkey) if done.resumed else None  # the committed one
        again = ReadJob(done.path, done.fid, done.offset, start, done.resumed)
        conclude(run.source, read_file(run.source, again, self._config), self._config)
        run.kept[fkey] = state = again.state or FileState()
        return state

    def _emit(self, run: _SourceRun, key: str, built: Draft | str) -> Draft | None:
        """The session to yield for ``key`` now, if it holds anything new within the window."""
        tally = run.tally
        if isinstance(built, str):
            if key not in run.emitted:
                run.reasons[key] = built
            return None
        if self._cutoff is not None and built.ended < self._cutoff:
            run.reasons.setdefault(key, "older than --since")
            return None
        before = run.delivered.get(key)
        turns = len(built.steps)
        first_new = 0
        if before is not None and 0 < before.turns <= turns and key not in run.rewritten:
            same = fingerprint(built.steps[before.turns - 1]) == before.last
            if same and before.turns == turns:
                run.reasons[key] = "nothing new since the last harvest"
                return None
            first_new = before.turns if same else before.turns - 1
        if self._record:  # a look that is never committed delivers nothing
            last = fingerprint(built.steps[-1]) if built.steps else ""
            self._index.deliver(run.source.name, key, Delivered(turns, last))
        run.reasons.pop(key, None)
        if key in run.emitted:
            tally.discount(run.emitted[key])
        run.emitted[key] = tally.count(built)
        self.first_new[f"{built.harness}:{built.session_id}"] = first_new  # its session_ref
        return built


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
    record: bool = True,
) -> HarvestResult:
    """Every session of one run, collected (a later yield of a session supersedes an earlier),
    sorted by start time. Nothing is committed."""
    harvest_run = HarvestRun(
        project,
        sources,
        since,
        index,
        homes=homes,
        include_sidechains=include_sidechains,
        progress=progress,
        now=now,
        record=record,
    )
    latest: dict[str, Session] = {}
    for session in harvest_run:
        latest[session_ref(session)] = session
    ordered = sorted(latest.values(), key=lambda s: (s.started_at, s.harness, s.session_id))
    first_new = {session_ref(s): harvest_run.first_new[session_ref(s)] for s in ordered}
    return HarvestResult(tuple(ordered), harvest_run.stats, first_new)
