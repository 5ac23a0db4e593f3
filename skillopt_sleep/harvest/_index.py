"""The SQLite harvest index: per transcript file, what was read and what it yielded.

Per file it stores the identity (device, inode, size, mtime, head hash), the byte offset after the
last complete line read, the session key, whether the file is in the project's scope, and the
parsed :class:`FileState` (JSON), so a grown file is finished from its new bytes alone.
Writes happen in one transaction that is committed only when the caller says so; an interrupted
harvest leaves the previous checkpoint untouched. A rollback journal, not WAL: a cold harvest
writes tens of MB of fresh pages, which a rollback journal writes once and WAL twice (~3x the
commit cost, measured), and nothing reads the index concurrently.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import orjson

from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import FileId

SCHEMA_VERSION = "2"
INDEX_NAME = "harvest-index.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_len INTEGER NOT NULL, head_hash TEXT NOT NULL,
    offset INTEGER NOT NULL,
    session_key TEXT NOT NULL,
    in_scope INTEGER NOT NULL,
    state BLOB
);
CREATE INDEX IF NOT EXISTS files_by_session ON files (source, session_key);
"""


@dataclass(frozen=True)
class FileRow:
    path: str
    source: str
    fid: FileId
    offset: int
    session_key: str
    in_scope: bool


def pack(state: FileState) -> bytes:
    return orjson.dumps(state.to_json())


def unpack(blob: bytes | None) -> FileState:
    if not blob:
        return FileState()
    return FileState.from_json(orjson.loads(blob))


class HarvestIndex:
    """One SQLite file (or ``:memory:``) per project."""

    def __init__(self, location: Path | str) -> None:
        if isinstance(location, Path):
            location.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(location), isolation_level="DEFERRED")
        with contextlib.suppress(sqlite3.OperationalError):  # another connection keeps it WAL
            self._db.execute("PRAGMA journal_mode=TRUNCATE")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            self._db.commit()
        elif row[0] != SCHEMA_VERSION:
            self._db.execute("DELETE FROM files")  # an older layout: read everything afresh
            self._db.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))
            self._db.commit()

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> HarvestIndex:
        return cls(Path(state_dir) / INDEX_NAME)

    def rows(self, source: str) -> dict[str, FileRow]:
        """Every file row of one source, keyed by path (one query, no state blobs)."""
        cursor = self._db.execute(
            "SELECT path, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, session_key,"
            " in_scope FROM files WHERE source=?",
            (source,),
        )
        return {
            r[0]: FileRow(
                r[0], r[1], FileId(r[2], r[3], r[4], r[5], r[6], r[7]), r[8], r[9], bool(r[10])
            )
            for r in cursor
        }

    def state(self, path: str) -> FileState:
        row = self._db.execute("SELECT state FROM files WHERE path=?", (path,)).fetchone()
        return unpack(row[0] if row else None)

    def session_paths(self, source: str, session_key: str) -> list[str]:
        cursor = self._db.execute(
            "SELECT path FROM files WHERE source=? AND session_key=? AND in_scope=1 ORDER BY path",
            (source, session_key),
        )
        return [r[0] for r in cursor]

    def put(self, row: FileRow, state: FileState | None, packed: bytes = b"") -> None:
        """``packed``: ``pack(state)`` when the caller already has it."""
        fid = row.fid
        blob = (packed or pack(state)) if state is not None and row.in_scope else None
        self._db.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                row.path,
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

    def commit(self) -> None:
        self._db.commit()

    def rollback(self) -> None:
        self._db.rollback()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> HarvestIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
