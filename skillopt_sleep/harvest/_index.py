"""The SQLite harvest index: per project and transcript file, what was read and what it yielded.

Rows are keyed by project and by a digest of the file's path, never the path itself (a file or
folder name can hold a secret); the digest of the project root keeps two projects harvested into
one state directory apart (Codex keeps every project's rollouts in one dated tree, so "another
project's file" is only true per project). Per file it stores the identity (device, inode, size,
mtime, head hash), the byte offset after the last complete line read, the (redacted) session key,
whether the file is in the project's scope, where it is (:func:`place`: digests of the folders
above it, so a run can tell a file that is gone from one it did not look for), and the parsed,
redacted :class:`FileState`, so a grown file is finished from its new bytes alone. Per session it
stores what was delivered (the number of turns and a fingerprint of the last one), so a session
is emitted again only for what is new, whichever file it comes from (a Codex rollout moved to
``archived_sessions/`` is not new).

A recording run (one that may commit) writes its rows inside one transaction, opened at its first
write after checking that no other run committed for the project since this one planned (else
``BusyError``); :meth:`HarvestIndex.commit` ends it, a kill or :meth:`rollback` leaves the previous
checkpoint untouched. A read-only run never writes: it keeps which file holds which session in
memory and takes no write lock. Readers wait up to ``BUSY_TIMEOUT_S`` for a commit, then get a
``BusyError`` (never a raw "database is locked"). A recording run purges the rows of files
confirmed gone in the same transaction (:meth:`HarvestIndex.purge`): transcripts the harnesses
delete (Claude Code after 30 days) leave no row behind, and SQLite reuses the pages they held.
The file is 0600 in a 0700 directory (SQLite gives its journal the same mode). Stored text is
redacted again when the redaction rules change (see ``_reseal``). A rollback
journal, not WAL: a cold harvest writes tens of MB of fresh pages, which WAL would write twice.
A night's commit keeps only its project's newest finished-night rows, and the file is vacuumed
when most of it is free (:mod:`._index_retention`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from skillopt_core.errors import BusyError
from skillopt_core.redaction import rules_fingerprint
from skillopt_sleep._sqlite import guarded, wipe_free_pages
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._index_retention import trim_nights, vacuum_if_worth_it
from skillopt_sleep.harvest._index_schema import (
    COLUMNS,
    Delivered,
    FileRow,
    digest,
    pack,
    set_up,
    unpack,
)
from skillopt_sleep.harvest._lines import FileId
from skillopt_sleep.harvest._reseal import is_current, reseal, reseal_index

__all__ = [
    "BUSY_TIMEOUT_S",
    "INDEX_NAME",
    "Delivered",
    "FileRow",
    "HarvestIndex",
    "digest",
    "pack",
    "refuse_if_running",
    "run_lock",
]

INDEX_NAME = "harvest-index.sqlite3"
LOCK_DIR = ".harvest-lock"
BUSY_TIMEOUT_S = 30.0  # a commit is one short transaction; readers wait for it this long
COMMIT_COMMAND = "harvest --commit"  # how a committing harvest names itself in the run lock


def _guarded(location: str) -> contextlib.AbstractContextManager[None]:
    return guarded(
        location, "the harvest index", f"delete {location} to re-read every transcript next run"
    )


@contextlib.contextmanager
def run_lock(location: Path, what: str = COMMIT_COMMAND) -> Iterator[None]:
    """Hold the run lock of the index at ``location`` (``BusyError`` at once if another run
    holds it). Taken before the index is opened: a holder may keep SQLite's write lock for its
    whole run, and opening would wait on it first."""
    from skillopt_core.lock import exclusive
    from skillopt_sleep.paths import private_dir, private_file

    with _guarded(str(location)):
        folder = private_dir(location.parent / LOCK_DIR)
        private_file(folder / ".lock")  # the lock creates it 0644 otherwise
    with exclusive(folder, what):
        yield


def refuse_if_running(location: Path) -> None:
    """``BusyError`` naming the holder when another run holds the run lock of the index at
    ``location``. A run that records (a night, ``harvest --commit``) keeps SQLite's write lock
    from its first large write to its commit, up to the whole night, so a read-only harvest
    would wait for all of it, silently; it is turned away at once instead, as a second night
    is. Tests the lock and creates nothing."""
    from skillopt_core.lock import held_by

    held = held_by(location.parent / LOCK_DIR)
    if held is None:
        return
    raise BusyError(
        f"another {held.what} (pid {held.pid}) is using the harvest index {location}, "
        "and may hold it until it ends",
        hint="wait for it to finish (`skillopt-sleep status` shows a running night), then run "
        "this again",
    )


def _add(table: dict[tuple[str, str], tuple[str, ...]], key: tuple[str, str], fkey: str) -> None:
    held = table.get(key, ())
    if fkey not in held:
        table[key] = (*held, fkey)


def _drop(table: dict[tuple[str, str], tuple[str, ...]], key: tuple[str, str], fkey: str) -> None:
    held = table.get(key, ())
    if fkey in held:
        table[key] = tuple(k for k in held if k != fkey)


def _row(r: tuple[Any, ...], places: dict[str, str]) -> FileRow:
    """One row; ``places`` shares one string per place (the files of a folder have the same)."""
    fkey, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, key, in_scope, at = r
    fid = FileId(dev, ino, size, mtime_ns, head_len, head_hash)
    return FileRow(fkey, source, fid, offset, key, bool(in_scope), places.setdefault(at, at))


class HarvestIndex:
    """One SQLite file (or ``:memory:``); rows belong to the project given to :meth:`bind`."""

    def __init__(self, location: Path | str) -> None:
        self.location = location
        self._where = str(location)
        self._project = ""
        self._generation = ""
        self._record = True
        self._stale = False  # a read-only run under other redaction rules than the stored text's
        self._writing = False
        # session key -> in-scope path digests: committed (loaded with ``rows``) and this run's;
        # tuples, not sets: nearly every session has one file, and a run holds one per session
        self._committed: dict[tuple[str, str], tuple[str, ...]] = {}
        self._read: dict[str, tuple[str, str, bool]] = {}  # fkey -> (source, key, in scope)
        self._by_key: dict[tuple[str, str], tuple[str, ...]] = {}
        with _guarded(self._where):
            if isinstance(location, Path):
                from skillopt_sleep.paths import private_dir, private_file

                private_file(private_dir(location.parent) / location.name)
            self._db = sqlite3.connect(str(location), isolation_level=None, timeout=BUSY_TIMEOUT_S)
            set_up(self._db, self._where)

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> HarvestIndex:
        return cls(Path(state_dir) / INDEX_NAME)

    # -- binding and locking ------------------------------------------------------------------

    def bind(self, project: str, *, record: bool = True) -> None:
        """Read (and, when ``record``, write) the rows of ``project`` (a resolved root);
        remembers the generation the run plans from, so a commit after another run's commit is
        refused. Without ``record`` nothing is ever written (and :meth:`commit` refuses)."""
        self._clear()
        self._project = digest(project)
        self._record = record
        fingerprint = rules_fingerprint()
        with _guarded(self._where):
            if record:  # stored text redacted under other rules is redacted again, on disk
                reseal_index(self._db, fingerprint)
                wipe_free_pages(self._db)
            self._stale = not record and not is_current(self._db, fingerprint)
            row = self._db.execute(
                "SELECT value FROM meta WHERE key=?", (self._generation_key(),)
            ).fetchone()
        self._generation = row[0] if row else "0"

    def _generation_key(self) -> str:
        return f"generation:{self._project}"

    def _night_prefix(self) -> str:
        return f"night:{self._project}:"

    def finished_nights(self) -> set[str]:
        """The nights whose commit recorded them (see :meth:`commit`), for the bound project:
        the newest ``NIGHT_ROWS`` of them (:mod:`._index_retention`)."""
        prefix = self._night_prefix()
        with _guarded(self._where):
            rows = self._db.execute(
                "SELECT key FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)
            ).fetchall()
        return {key[len(prefix) :] for (key,) in rows}

    def locked(self, what: str = COMMIT_COMMAND) -> contextlib.AbstractContextManager[None]:
        """Hold the index's run lock (``BusyError`` at once if another run holds it); ``what``
        names this run to the runs it turns away."""
        if not isinstance(self.location, Path):
            return contextlib.nullcontext()
        return run_lock(self.location, what)

    # -- reads --------------------------------------------------------------------------------

    def rows(self, source: str) -> dict[str, FileRow]:
        """Every committed file row of one source, keyed by path digest (no state blobs)."""
        with _guarded(self._where):
            cursor = self._db.execute(
                f"SELECT {COLUMNS} FROM files WHERE project=? AND source=?",
                (self._project, source),
            )
            places: dict[str, str] = {}
            rows = {r[0]: _row(r, places) for r in cursor}
        for row in rows.values():
            if row.in_scope:
                _add(self._committed, (source, row.session_key), row.fkey)
        return rows

    def delivered(self, source: str) -> dict[str, Delivered]:
        """What was emitted of each session of one source, keyed by session key."""
        with _guarded(self._where):
            cursor = self._db.execute(
                "SELECT session_key, turns, last FROM delivered WHERE project=? AND source=?",
                (self._project, source),
            )
            return {r[0]: Delivered(int(r[1]), str(r[2])) for r in cursor}

    def state(self, fkey: str) -> FileState:
        """The stored state of a file: this run's when it recorded one, else the committed one
        (a read-only run keeps no states: the caller reads such a file again)."""
        with _guarded(self._where):
            row = self._db.execute(
                "SELECT state FROM files WHERE project=? AND fkey=?", (self._project, fkey)
            ).fetchone()
        state = unpack(row[0] if row else None)
        return reseal(state) if self._stale else state

    def holds_state(self, fkey: str) -> bool:
        """Whether :meth:`state` has ``fkey`` as this run left it."""
        return self._record or fkey not in self._read

    def session_paths(self, source: str, session_key: str) -> list[str]:
        """Path digests of the in-scope files holding a session (after :meth:`rows` of the
        source): the committed ones this run did not re-key, and this run's."""
        committed = self._committed.get((source, session_key), ())
        mine = self._by_key.get((source, session_key), ())
        kept = {k for k in committed if k not in self._read}
        return sorted(kept.union(mine))

    # -- writes (only when recording) ---------------------------------------------------------

    def put(self, row: FileRow, state: FileState | None, packed: bytes = b"") -> None:
        """Record one read. ``packed``: ``pack(state)`` when the caller already has it."""
        before = self._read.get(row.fkey)
        if before is not None:
            _drop(self._by_key, (before[0], before[1]), row.fkey)
        self._read[row.fkey] = (row.source, row.session_key, row.in_scope)
        if row.in_scope:
            _add(self._by_key, (row.source, row.session_key), row.fkey)
        if not self._record:
            return
        fid = row.fid
        blob = None
        if row.in_scope:  # a worker's read arrives packed (its state was not shipped)
            blob = packed or (pack(state) if state is not None else None)
        self._write(
            f"INSERT OR REPLACE INTO files (project, {COLUMNS}, state)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                self._project,
                row.fkey,
                row.source,
                fid.dev,
                fid.ino,
                fid.size,
                fid.mtime_ns,
                fid.head_len,
                fid.head_hash,
                row.offset,
                row.session_key,
                int(row.in_scope),
                row.place,
                blob,
            ),
        )

    def deliver(self, source: str, session_key: str, done: Delivered) -> None:
        if self._record:
            self._write(
                "INSERT OR REPLACE INTO delivered VALUES (?,?,?,?,?)",
                (self._project, source, session_key, done.turns, done.last),
            )

    def set_places(self, places: Mapping[str, str]) -> None:
        """Record where the files of rows written before places were recorded are (fkey ->
        :func:`place`): once per such row, so that it too can be purged when its file goes."""
        if self._record and places:
            self._write_many(
                "UPDATE files SET place=? WHERE project=? AND fkey=?",
                [(at, self._project, fkey) for fkey, at in places.items()],
            )

    def purge(self, gone: Collection[str]) -> None:
        """Forget the files ``gone`` (path digests of files confirmed deleted; one statement).
        What was delivered of their sessions is kept (about 100 bytes a session): a session
        whose file moved or was skipped as older than a run's window (a Codex rollout archived
        with its old time) is then never delivered again as new. Part of the run's
        transaction."""
        if not self._record or not gone:
            return
        self._write(
            "DELETE FROM files WHERE project=? AND fkey IN (SELECT value FROM json_each(?))",
            (self._project, orjson.dumps(sorted(gone)).decode()),
        )

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        with _guarded(self._where):
            if not self._writing:
                self._begin()
            self._db.execute(sql, params)

    def _write_many(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        with _guarded(self._where):
            if not self._writing:
                self._begin()
            self._db.executemany(sql, params)

    def _begin(self) -> None:
        """Open the run's write transaction, unless another run committed since :meth:`bind`."""
        self._db.execute("BEGIN IMMEDIATE")
        self._writing = True
        row = self._db.execute(
            "SELECT value FROM meta WHERE key=?", (self._generation_key(),)
        ).fetchone()
        if (row[0] if row else "0") != self._generation:
            self.rollback()
            raise BusyError(
                "another harvest committed this project's index while this one ran;"
                " nothing was recorded",
                hint="run again: the sessions will be delivered once more",
            )

    def commit(self, night: str = "") -> None:
        """Make this run's records the index's checkpoint (one transaction); ``night`` is
        recorded in the same transaction, so a night whose sessions were consumed is known to
        have finished (:meth:`finished_nights`), and one killed before is known not to have;
        only the newest nights are kept, and a night's commit may vacuum the file after (see
        :mod:`._index_retention`)."""
        if not self._record:
            raise RuntimeError("this run was bound read-only (record=False): nothing to commit")
        with _guarded(self._where):
            if not self._writing:
                self._begin()
            self._generation = str(int(self._generation) + 1)
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (self._generation_key(), self._generation),
            )
            if night:
                self._db.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, '1')",
                    (f"{self._night_prefix()}{night}",),
                )
                trim_nights(self._db, self._night_prefix())
            self._db.execute("COMMIT")
        self._writing = False
        self._clear()
        if night:
            vacuum_if_worth_it(self._db, int(BUSY_TIMEOUT_S * 1000))

    def rollback(self) -> None:
        """Forget what this run would have recorded."""
        if self._writing:
            with _guarded(self._where):
                self._db.execute("ROLLBACK")
            self._writing = False
        self._clear()

    def _clear(self) -> None:
        self._read.clear()
        self._by_key.clear()
        self._committed.clear()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> HarvestIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
