"""The harvest index's layout: its tables, the rows it returns, and setting a file up.

A file of this schema is used as is; one of schema 3 is brought up to it keeping every row; an
older one is read afresh; a newer one is refused (an older daemon still running must not drop
what a newer version wrote).
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from dataclasses import dataclass

import orjson

from skillopt_core.errors import StorageError
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import FileId

SCHEMA_VERSION = "4"

_FILES = """
CREATE TABLE IF NOT EXISTS files (
    project TEXT NOT NULL,
    fkey TEXT NOT NULL,
    source TEXT NOT NULL,
    dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_len INTEGER NOT NULL, head_hash TEXT NOT NULL,
    offset INTEGER NOT NULL,
    session_key TEXT NOT NULL,
    in_scope INTEGER NOT NULL,
    place TEXT NOT NULL,
    state BLOB,
    PRIMARY KEY (project, fkey)
)"""
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    _FILES,
    "CREATE INDEX IF NOT EXISTS files_by_session ON files (project, source, session_key)",
    """CREATE TABLE IF NOT EXISTS delivered (
    project TEXT NOT NULL,
    source TEXT NOT NULL,
    session_key TEXT NOT NULL,
    turns INTEGER NOT NULL,
    last TEXT NOT NULL,
    PRIMARY KEY (project, source, session_key)
)""",
)
_V3_COLUMNS = (
    "fkey, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, session_key, in_scope"
)
COLUMNS = f"{_V3_COLUMNS}, place"  # all before the state blob: reading them skips its pages
_FROM_V3 = (  # schema 3 had no place: its rows are kept with "" (see HarvestIndex.set_places)
    "ALTER TABLE files RENAME TO files_v3",
    "DROP INDEX IF EXISTS files_by_session",
    _FILES,
    f"INSERT INTO files (project, {_V3_COLUMNS}, place, state)"
    f" SELECT project, {_V3_COLUMNS}, '', state FROM files_v3",
    "DROP TABLE files_v3",
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
    place: str = ""  # :func:`place`; "" for a row written before places were recorded


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


def set_up(db: sqlite3.Connection, where: str) -> None:
    """Make ``db`` hold this schema (see the module doc), in one transaction. A file another
    run keeps locked is a ``sqlite3.OperationalError`` after the busy timeout, once (it used to
    be waited out three times over)."""
    current = schema_of(db) == SCHEMA_VERSION
    with contextlib.suppress(sqlite3.OperationalError):  # another connection keeps it WAL
        db.execute("PRAGMA journal_mode=TRUNCATE")
    if current:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        found = schema_of(db)  # again, under the lock: another run may have set it up
        if found == "3":
            for statement in _FROM_V3:
                db.execute(statement)
        elif found is not None and found.isdigit() and int(found) > int(SCHEMA_VERSION):
            raise StorageError(
                f"the harvest index {where} was written by a newer skillopt-sleep "
                f"(schema {found}); nothing was changed",
                hint="run the newer version (restart a daemon or MCP server that still runs "
                "an older one), or delete the index to read every transcript again",
            )
        elif found is not None and found != SCHEMA_VERSION:  # read everything afresh
            for table in ("files", "delivered", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def schema_of(db: sqlite3.Connection) -> str | None:
    """The layout version the file holds; None for a fresh file (no meta yet). A locked file is
    raised, never taken for a fresh one."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    return str(row[0]) if row else None
