"""The SQLite harvest index: per project and transcript file, what was read and what it yielded.

Rows are keyed by project and by a digest of the file's path, never the path itself (a file or
folder name can hold a secret); the digest of the project root keeps two projects harvested into
one state directory apart (Codex keeps every project's rollouts in one dated tree, so "another
project's file" is only true per project). Per file it stores the identity (device, inode, size,
mtime, head hash), the byte offset after the last complete line read, the (redacted) session key,
whether the file is in the project's scope, and the parsed, redacted :class:`FileState`, so a
grown file is finished from its new bytes alone. Per session it stores what was delivered (the
number of turns and a fingerprint of the last one), so a session is emitted again only for what
is new, whichever file it comes from (a Codex rollout moved to ``archived_sessions/`` is not new).

A run never writes the index while it reads: what it would record goes to a private scratch
database, copied into the index in one short transaction by :meth:`HarvestIndex.commit`. So a
read-only run takes no write lock, a killed run leaves the previous checkpoint untouched, and the
commit refuses (``BusyError``) when another run committed since this one planned. The file is
0600 in a 0700 directory (SQLite gives its journal the same mode). A rollback journal, not WAL: a
cold harvest writes tens of MB of fresh pages, which WAL would write twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from skillopt_core.errors import BusyError, StorageError
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import FileId

SCHEMA_VERSION = "3"
INDEX_NAME = "harvest-index.sqlite3"
LOCK_DIR = ".harvest-lock"
BUSY_TIMEOUT_S = 30.0  # a commit is one short transaction; readers wait for it this long

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    project TEXT NOT NULL,
    fkey TEXT NOT NULL,
    source TEXT NOT NULL,
    dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_len INTEGER NOT NULL, head_hash TEXT NOT NULL,
    offset INTEGER NOT NULL,
    session_key TEXT NOT NULL,
    in_scope INTEGER NOT NULL,
    state BLOB,
    PRIMARY KEY (project, fkey)
);
CREATE INDEX IF NOT EXISTS files_by_session ON files (project, source, session_key);
CREATE TABLE IF NOT EXISTS delivered (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    session_key TEXT NOT NULL,
    turns INTEGER NOT NULL,
    last TEXT NOT NULL,
    PRIMARY KEY (project, source, session_key)
);
"""
_SCRATCH = """
CREATE TABLE files (
    fkey TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_len INTEGER NOT NULL, head_hash TEXT NOT NULL,
    offset INTEGER NOT NULL,
    session_key TEXT NOT NULL,
    in_scope INTEGER NOT NULL,
    state BLOB
);
CREATE INDEX files_by_session ON files (source, session_key);
CREATE TABLE delivered (
    source TEXT NOT NULL, session_key TEXT NOT NULL, turns INTEGER NOT NULL, last TEXT NOT NULL,
    PRIMARY KEY (source, session_key)
);
"""
_COLUMNS = (
    "fkey, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, session_key, in_scope"
)


def digest(text: str) -> str:
    """The key a path or project root is stored under (it is never stored as text)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class FileRow:
    fkey: str  # digest(path)
    source: str
    fid: FileId
    offset: int
    session_key: str
    in_scope: bool


@dataclass(frozen=True)
class Delivered:
    """What was emitted of a session: how many turns, and a fingerprint of the last one."""

    turns: int
    last: str


def pack(state: FileState) -> bytes:
    return orjson.dumps(state.to_json())


def unpack(blob: bytes | None) -> FileState:
    if not blob:
        return FileState()
    return FileState.from_json(orjson.loads(blob))


@contextlib.contextmanager
def _guarded(location: str) -> Iterator[None]:
    """SQLite failures as our errors: busy -> BusyError, anything else -> StorageError."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise BusyError(
                f"the harvest index {location} is busy (another harvest is committing)",
                hint="wait for the other run to finish, then run again",
            ) from None
        raise StorageError(
            f"the harvest index {location} cannot be used: {text}",
            hint="check the disk and the permissions of the state directory",
        ) from None
    except sqlite3.DatabaseError as exc:
        raise StorageError(
            f"the harvest index {location} is damaged: {exc}",
            hint=f"delete {location} to re-read every transcript on the next run",
        ) from None
    except OSError as exc:  # the state directory cannot be made or opened
        raise StorageError(
            f"the harvest index {location} cannot be created: {exc.strerror or exc}",
            hint="check the state directory (--state-dir) exists and is writable",
        ) from None


def _row(r: tuple[Any, ...]) -> FileRow:
    fkey, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, key, in_scope = r
    fid = FileId(dev, ino, size, mtime_ns, head_len, head_hash)
    return FileRow(fkey, source, fid, offset, key, bool(in_scope))


class HarvestIndex:
    """One SQLite file (or ``:memory:``); rows belong to the project given to :meth:`bind`."""

    def __init__(self, location: Path | str) -> None:
        self.location = location
        self._where = str(location)
        self._project = ""
        self._generation = ""
        with _guarded(self._where):
            if isinstance(location, Path):
                from skillopt_sleep.paths import private_dir, private_file

                private_file(private_dir(location.parent) / location.name)
            self._db = sqlite3.connect(str(location), isolation_level=None, timeout=BUSY_TIMEOUT_S)
            self._setup()
            self._scratch = sqlite3.connect("", isolation_level=None)  # private temp file
            self._scratch.execute("PRAGMA journal_mode=OFF")
            self._scratch.execute("PRAGMA synchronous=OFF")
            self._scratch.executescript(_SCRATCH)
            self._scratch.execute("BEGIN")

    def _setup(self) -> None:
        db = self._db
        with contextlib.suppress(sqlite3.OperationalError):  # another connection keeps it WAL
            db.execute("PRAGMA journal_mode=TRUNCATE")
        row = None
        with contextlib.suppress(sqlite3.OperationalError):  # a fresh file has no meta yet
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is not None and row[0] == SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            if row is not None:  # an older layout: read everything afresh
                for table in ("files", "delivered", "meta"):
                    db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> HarvestIndex:
        return cls(Path(state_dir) / INDEX_NAME)

    # -- binding and locking ------------------------------------------------------------------

    def bind(self, project: str) -> None:
        """Read and write the rows of ``project`` (a resolved root); remembers the generation
        the run plans from, so a commit after another run's commit is refused."""
        self._project = digest(project)
        with _guarded(self._where):
            row = self._db.execute(
                "SELECT value FROM meta WHERE key=?", (self._generation_key(),)
            ).fetchone()
        self._generation = row[0] if row else "0"

    def _generation_key(self) -> str:
        return f"generation:{self._project}"

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the index's run lock (``BusyError`` at once if another run holds it)."""
        if not isinstance(self.location, Path):
            yield
            return
        from skillopt_core.lock import exclusive
        from skillopt_sleep.paths import private_dir, private_file

        with _guarded(self._where):
            folder = private_dir(self.location.parent / LOCK_DIR)
            private_file(folder / ".lock")  # the lock creates it 0644 otherwise
        with exclusive(folder, "harvest --commit"):
            yield

    # -- reads --------------------------------------------------------------------------------

    def rows(self, source: str) -> dict[str, FileRow]:
        """Every committed file row of one source, keyed by path digest (no state blobs)."""
        with _guarded(self._where):
            cursor = self._db.execute(
                f"SELECT {_COLUMNS} FROM files WHERE project=? AND source=?",
                (self._project, source),
            )
            return {r[0]: _row(r) for r in cursor}

    def delivered(self, source: str) -> dict[str, Delivered]:
        """What was emitted of each session of one source, keyed by session key."""
        with _guarded(self._where):
            cursor = self._db.execute(
                "SELECT session_key, turns, last FROM delivered WHERE project=? AND source=?",
                (self._project, source),
            )
            return {r[0]: Delivered(int(r[1]), str(r[2])) for r in cursor}

    def state(self, fkey: str) -> FileState:
        row = self._scratch.execute("SELECT state FROM files WHERE fkey=?", (fkey,)).fetchone()
        if row is None:
            with _guarded(self._where):
                row = self._db.execute(
                    "SELECT state FROM files WHERE project=? AND fkey=?", (self._project, fkey)
                ).fetchone()
        return unpack(row[0] if row else None)

    def session_paths(self, source: str, session_key: str) -> list[str]:
        """Path digests of the in-scope files holding a session (this run's reads first)."""
        pending = dict(
            self._scratch.execute(
                "SELECT fkey, in_scope FROM files WHERE source=? AND session_key=?",
                (source, session_key),
            ).fetchall()
        )
        with _guarded(self._where):
            committed = [
                r[0]
                for r in self._db.execute(
                    "SELECT fkey FROM files WHERE project=? AND source=? AND session_key=?"
                    " AND in_scope=1",
                    (self._project, source, session_key),
                )
            ]
        moved = [k for k in committed if k not in pending]
        if moved:  # a committed row this run re-read under another key no longer counts
            marks = ",".join("?" * len(moved))
            rekeyed = {
                r[0]
                for r in self._scratch.execute(
                    f"SELECT fkey FROM files WHERE fkey IN ({marks})", moved
                )
            }
            moved = [k for k in moved if k not in rekeyed]
        return sorted([k for k, scoped in pending.items() if scoped] + moved)

    # -- writes (to the scratch database until commit) ----------------------------------------

    def put(self, row: FileRow, state: FileState | None, packed: bytes = b"") -> None:
        """``packed``: ``pack(state)`` when the caller already has it."""
        fid = row.fid
        blob = (packed or pack(state)) if state is not None and row.in_scope else None
        self._scratch.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
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
                blob,
            ),
        )

    def deliver(self, source: str, session_key: str, done: Delivered) -> None:
        self._scratch.execute(
            "INSERT OR REPLACE INTO delivered VALUES (?,?,?,?)",
            (source, session_key, done.turns, done.last),
        )

    def commit(self) -> None:
        """Copy this run's records into the index in one transaction.

        Refused with ``BusyError`` (nothing written) when another run committed for this project
        since :meth:`bind`: this run planned from a checkpoint that is no longer current.
        """
        db, project = self._db, self._project
        with _guarded(self._where):
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute(
                    "SELECT value FROM meta WHERE key=?", (self._generation_key(),)
                ).fetchone()
                if (row[0] if row else "0") != self._generation:
                    raise BusyError(
                        "another harvest committed this project's index while this one ran;"
                        " nothing was recorded",
                        hint="run again: the sessions will be delivered once more",
                    )
                db.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    ((project, *r) for r in self._scratch.execute("SELECT * FROM files")),
                )
                db.executemany(
                    "INSERT OR REPLACE INTO delivered VALUES (?,?,?,?,?)",
                    ((project, *r) for r in self._scratch.execute("SELECT * FROM delivered")),
                )
                self._generation = str(int(self._generation) + 1)
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (self._generation_key(), self._generation),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        self._clear()

    def rollback(self) -> None:
        """Forget what this run would have recorded."""
        self._clear()

    def _clear(self) -> None:
        self._scratch.execute("ROLLBACK")
        self._scratch.execute("BEGIN")

    def close(self) -> None:
        self._scratch.close()
        self._db.close()

    def __enter__(self) -> HarvestIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
