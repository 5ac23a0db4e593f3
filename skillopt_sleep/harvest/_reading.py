"""Reading transcript files into :class:`FileState`s: one file per job, in parallel when it pays.

A job folds the complete lines after an offset into a state, keys and scopes the file on the raw
session facts, then seals (redacts) everything it added, session facts included, and drafts the
file's session; it reports where the next read starts and what it skipped. A record is never
dropped for one bad byte (invalid UTF-8 is decoded with replacement) or one impossible time (the
record is skipped and counted). Large cold harvests spread jobs over forked worker processes,
which inherit the parent's configured redactor, so user patterns apply there too.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from skillopt_sleep import _forked
from skillopt_sleep.harvest._build import Draft, clean_path, draft, in_project
from skillopt_sleep.harvest._events import BadTimestamp, FileState, seal
from skillopt_sleep.harvest._index import pack
from skillopt_sleep.harvest._lines import FileId, LineRead, iter_blocks, with_head
from skillopt_sleep.harvest._registry import Feed, HarvestConfig, Source

_SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
_SKIP_REASONS = {Feed.UNKNOWN: "unknown record type", Feed.SIDECHAIN: "sidechain record"}
PARALLEL_MIN_FILES = 64
PARALLEL_MIN_BYTES = 32 << 20
BATCH_FILES = 16  # files per batch a worker sends back at once
BATCHES_PER_WORKER = 8  # at least this many (smaller) batches each, so the load stays even


@dataclass(slots=True)
class ReadJob:
    """One file to read: a plain path string (a run plans one per file, so each byte counts)."""

    path: str
    fid: FileId
    offset: int
    state: FileState | None  # None: a read from the start (allocated when read, freed after)
    resumed: bool
    rewritten: bool = False  # the index knew this file, and it changed other than by appending
    fkey: str = ""  # the path's digest (the index key), when the planner already made it


@dataclass
class ReadOutcome:
    job: ReadJob
    offset: int = 0
    stamped: FileId | None = None  # identity with the head hash of what was read
    skipped: Counter[str] = field(default_factory=Counter)
    error: str = ""
    packed: bytes = b""  # the state as stored in the index, when it was read in a worker
    key: str = ""  # the session key, working directory and scope of the file read
    cwd: str = ""
    scoped: bool = False
    alone: Draft | str | None = None  # the session if this file were its only one (see conclude)
    first_event: int = 0  # events before this index were sealed by an earlier read
    rendered: bytes = b""  # ``alone`` as the consumer renders it, when a worker did it already

    @property
    def bytes_read(self) -> int:
        return max(0, self.offset - self.job.offset)


def read_file(
    source: Source, job: ReadJob, config: HarvestConfig, stamp: bool = True
) -> ReadOutcome:
    """Fold the complete lines after ``job.offset`` into ``job.state``; never raises on I/O.

    Without ``stamp`` (a run that records nothing) the file's identity is kept without the hash
    of its head, which only tells a later read whether it may resume."""
    state = job.state = job.state if job.state is not None else FileState()
    outcome = ReadOutcome(job, job.offset, first_event=len(state.events))
    read = LineRead(job.offset)
    try:
        blocks = iter_blocks(job.path, job.offset, read, config.max_line_bytes)
        _feed_blocks(source, state, blocks, config, outcome.skipped)
        _tail(source, state, read, config, outcome.skipped)
        outcome.stamped = with_head(job.path, job.fid, read.offset, read.head) if stamp else job.fid
    except OSError:
        outcome.error = "unreadable file"
        job.state = None  # nothing of a failed read is kept (or left unredacted)
        return outcome
    if read.oversized:
        outcome.skipped[f"line over {config.max_line_bytes >> 20} MiB"] += read.oversized
    outcome.offset = read.offset
    return outcome


def conclude(source: Source, outcome: ReadOutcome, config: HarvestConfig) -> None:
    """Key and scope the file read, seal it, and draft its session as if no other file held it.

    Scope is decided on the raw working directory (a resumed file's is already redacted, which
    the redacted project root still contains); then the new events and the session facts are
    redacted in one batch. Done where the file was read, so a worker ships a compact draft
    instead of the parent decoding the state; the parent uses the draft when the index confirms
    the file is alone.
    """
    job, project = outcome.job, str(config.project)
    state = job.state
    if outcome.error or state is None:
        return
    raw_key = _session_key(source, state, job.path)
    cwd = source.project_dir(state)
    outcome.scoped = not cwd or in_project(cwd, project) or in_project(cwd, clean_path(project))
    # the session key and the file's path are sealed with the rest (one redaction batch, not
    # one call each), then taken back out
    state.meta["session_key"], state.meta["source_file"] = raw_key, job.path
    seal(state.events, outcome.first_event, state.meta)
    outcome.key = key = state.meta.pop("session_key")
    path = state.meta.pop("source_file")
    outcome.cwd = cwd = source.project_dir(state)
    if not outcome.scoped or not (outcome.bytes_read or not job.resumed):
        return
    if not cwd:
        outcome.alone = "no working directory recorded"
        return
    mtime = job.fid.mtime_ns / 1e9
    outcome.alone = draft(source.harness, key, clean_path(project), [state], [path], mtime)


def _session_key(source: Source, state: FileState, path: str) -> str:
    """``source.session_key``; the default one makes no ``Path`` (5 µs a file) when the file
    names its session, as it then ignores the path."""
    if type(source).session_key is Source.session_key and state.session_id:
        return state.session_id
    return source.session_key(state, Path(path))


def _tail(
    source: Source, state: FileState, read: LineRead, config: HarvestConfig, skipped: Counter[str]
) -> None:
    if not read.tail:
        return
    try:
        record = source.parse(read.tail)
    except ValueError:
        record = _reparse(source.parse, read.tail)
    if isinstance(record, dict):  # a complete record that only lacks its newline
        _fold(source, state, record, config, skipped)
        read.offset += len(read.tail)
    else:
        skipped["partial last line (left for next time)"] += 1


def _feed_blocks(
    source: Source,
    state: FileState,
    blocks: Iterable[tuple[bytes, int]],
    config: HarvestConfig,
    skipped: Counter[str],
) -> None:
    """Runs of lines (see ``iter_blocks``): a source's compiled fold takes every line it can, in
    order, and hands each other line to ``_feed``."""
    fold = source.fold_lines
    if fold is None:
        for data, end in blocks:
            _feed(source, state, data[:end].split(b"\n"), config, skipped)
        return
    sidechains, sidechain = config.include_sidechains, _SKIP_REASONS[Feed.SIDECHAIN]
    for data, end in blocks:
        at = 0
        while at < end:
            at, line_start, line_end, sides = fold(data, at, end, state, sidechains)
            if sides:
                skipped[sidechain] += sides
            if line_start >= 0:
                _feed(source, state, (data[line_start:line_end],), config, skipped)


def _feed(
    source: Source,
    state: FileState,
    lines: Iterable[bytes],
    config: HarvestConfig,
    skipped: Counter[str],
) -> None:
    """The per-line loop (hot: one pass over every line, so no per-line helper calls)."""
    ignorable, feed = source.ignorable, source.feed
    parse: Callable[[bytes], Any] = source.parse
    if type(source).parse is Source.parse:
        parse = orjson.loads  # the default, without a method call per line
    head = source.ignorable_head.match if source.ignorable_head is not None else None
    for line in lines:
        if not line or (ignorable and line.startswith(ignorable)):
            continue
        if head is not None and head(line) is not None:
            continue
        try:
            record = parse(line)
        except ValueError:
            record = _reparse(parse, line)
            if record is None:
                skipped["malformed json"] += 1
                continue
        if not isinstance(record, dict):
            skipped["not a json object"] += 1
            continue
        try:
            outcome = feed(state, record, config)
        except BadTimestamp:
            skipped["timestamp out of range"] += 1
            continue
        except _SHAPE_ERRORS:
            skipped["unexpected record shape"] += 1
            continue
        if outcome is Feed.UNKNOWN or outcome is Feed.SIDECHAIN:
            skipped[_SKIP_REASONS[outcome]] += 1


def _reparse(parse: Callable[[bytes], Any], line: bytes) -> Any:
    """A line that failed to parse, once more (None: still bad): invalid UTF-8 replaced, and a
    lone surrogate escape (``"\\ud83d"``: half an emoji, where a harness cut text by UTF-16
    units, as JavaScript's ``slice`` does; strict parsers refuse it) read as U+FFFD."""
    text = line.decode("utf-8", "replace")
    replaced = text.encode("utf-8")
    if replaced != line:
        try:
            return parse(replaced)
        except ValueError:
            pass
    if "\\u" not in text:
        return None  # the JSON itself is broken
    try:
        return _without_surrogates(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _without_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a pair was joined by the parser already


def _fold(
    source: Source, state: FileState, record: object, config: HarvestConfig, skipped: Counter[str]
) -> None:
    if not isinstance(record, dict):
        skipped["not a json object"] += 1
        return
    try:
        outcome = source.feed(state, record, config)
    except BadTimestamp:
        skipped["timestamp out of range"] += 1
        return
    except _SHAPE_ERRORS:
        skipped["unexpected record shape"] += 1
        return
    if outcome in _SKIP_REASONS:
        skipped[_SKIP_REASONS[outcome]] += 1


# An outcome as a worker sends it back: plain tuples, as pickling dataclasses, paths and
# counters costs several times more, on both sides (the parent already holds the job).
_Flat = tuple[int, "tuple[int, int, int, int, int, str] | None", "dict[str, int]", str, bytes,
              str, str, bool, Any, int, bytes]  # fmt: skip
Render = Callable[[Draft], bytes]


def _work(
    source: Source, job: ReadJob, config: HarvestConfig, keep: bool, render: Render | None
) -> _Flat:
    """Read in a worker. When the run records, the state travels back packed (the index stores
    it so anyway), as one bytes object is far cheaper to pickle than thousands of event lists;
    a read-only run needs only the draft. With ``render``, the draft is also rendered here, in
    parallel, for the consumer to use when the file turns out to hold the whole session."""
    outcome = read_file(source, job, config, keep)
    conclude(source, outcome, config)
    if keep and job.state is not None:
        outcome.packed = pack(job.state)
    job.state = None
    stamped, alone = outcome.stamped, outcome.alone
    rendered = render(alone) if render is not None and isinstance(alone, Draft) else b""
    return (
        outcome.offset,
        None if stamped is None else _fid_tuple(stamped),
        dict(outcome.skipped),
        outcome.error,
        outcome.packed,
        outcome.key,
        outcome.cwd,
        outcome.scoped,
        tuple(alone) if isinstance(alone, Draft) else alone,
        outcome.first_event,
        rendered,
    )


def _fid_tuple(fid: FileId) -> tuple[int, int, int, int, int, str]:
    return (fid.dev, fid.ino, fid.size, fid.mtime_ns, fid.head_len, fid.head_hash)


def _unflat(job: ReadJob, flat: _Flat) -> ReadOutcome:
    offset, stamped, skipped, error, packed, key, cwd, scoped, alone, first, rendered = flat
    return ReadOutcome(
        job,
        offset,
        None if stamped is None else FileId(*stamped),
        Counter(skipped) if skipped else Counter(),  # mostly empty: no update() call
        error,
        packed,
        key,
        cwd,
        scoped,
        Draft._make(alone) if isinstance(alone, tuple) else alone,
        first,
        rendered,
    )


def _parallel(groups: Sequence[tuple[Source, Sequence[ReadJob]]]) -> int:
    """How many worker processes to use (0: read in this process)."""
    cpus = _forked.usable_cpus()
    jobs = [j for _, js in groups for j in js]
    pending = sum(max(0, j.fid.size - j.offset) for j in jobs)
    if cpus < 2 or len(jobs) < PARALLEL_MIN_FILES or pending < PARALLEL_MIN_BYTES:
        return 0
    return min(cpus, _forked.MAX_WORKERS) if _forked.available() else 0


def read_all(
    groups: Sequence[tuple[Source, Sequence[ReadJob]]],
    config: HarvestConfig,
    on_done: Callable[[int], None] | None = None,
    keep_states: bool = True,
    render: Render | None = None,
) -> Iterator[tuple[int, ReadOutcome]]:
    """(group index, outcome) in group and job order; ``on_done`` gets the group index.

    Large reads are shared by forked workers (see ``_forked``), each running ahead of the
    caller by a bounded number of batches. Without ``keep_states`` a worker's outcome carries
    the draft but not the file's state; with ``render`` a worker also renders the draft (the
    in-process path leaves rendering to the caller).
    """
    workers = _parallel(groups)
    if not workers:
        for number, (source, jobs) in enumerate(groups):
            for job in jobs:
                outcome = read_file(source, job, config, keep_states)
                conclude(source, outcome, config)
                yield number, outcome
                if on_done:
                    on_done(number)
        return
    # one flat list of jobs and their group numbers (small ints): no per-job tuple is built
    pooled = [job for _, jobs in groups for job in jobs]
    owners = [n for n, (_, jobs) in enumerate(groups) for _ in jobs]
    sources = [source for source, _ in groups]

    def work(at: int) -> _Flat:  # runs in a worker, which inherits all of the above
        return _work(sources[owners[at]], pooled[at], config, keep_states, render)

    batch = max(1, min(BATCH_FILES, len(pooled) // (workers * BATCHES_PER_WORKER)))
    results = _forked.ordered_map(work, range(len(pooled)), workers, batch)
    try:
        for at, flat in enumerate(results):
            number = owners[at]
            yield number, _unflat(pooled[at], flat)  # its state stays packed
            if on_done:
                on_done(number)
    finally:
        results.close()
