"""Bounded growth of the harvest index: the finished nights it records, and a rare VACUUM.

A night's commit records the night (``meta`` row ``night:<project>:<night id>``) so the next
night can tell a night killed after staging from one that finished. Its readers (the engine's
``finish``) need only recent rows: the nights after the newest history line (to restore a lost
line) and those after any proposal a killed night left (removed by the very next night); a
proposal older than the oldest recorded night is kept as finished. So the commit drops, in its
own transaction, all but the newest ``NIGHT_ROWS`` rows of the project (ids sort by start
time): dropping the oldest keeps both rules' answers. Night ids of the same second with a
suffix of two digits (``-10``) may sort before ``-2``; at worst one such row goes first.

Pages the purge of deleted transcripts freed are reused by SQLite, but a file that shrank a lot
keeps its size. After a night's commit, :func:`vacuum_if_worth_it` rewrites the file when at
least ``VACUUM_SHARE`` of it (and ``VACUUM_MIN_BYTES``) is free: rarely, never every night.
``VACUUM`` is atomic (a kill leaves the file as it was); one that cannot run now (another run
reads the file, a full disk) is left for a later night and never fails this one.
"""

from __future__ import annotations

import sqlite3

NIGHT_ROWS = 60  # finished nights kept per project: far more than the few the readers look at
VACUUM_SHARE = 0.5  # free share of the file that is worth rewriting it (it at least halves)
VACUUM_MIN_BYTES = 1 << 20  # free space below this is not worth a rewrite (1 MiB)


def trim_nights(db: sqlite3.Connection, prefix: str, keep: int | None = None) -> int:
    """Delete all but the newest ``keep`` (default ``NIGHT_ROWS``) rows whose key starts with
    ``prefix``, in the caller's transaction; returns how many were deleted."""
    most = NIGHT_ROWS if keep is None else keep
    cursor = db.execute(
        "DELETE FROM meta WHERE key IN (SELECT key FROM meta WHERE substr(key, 1, ?) = ? "
        "ORDER BY key DESC LIMIT -1 OFFSET ?)",
        (len(prefix), prefix, most),
    )
    return int(cursor.rowcount)


def vacuum_if_worth_it(db: sqlite3.Connection, busy_ms: int) -> bool:
    """``VACUUM`` (outside any transaction) when the free pages are worth it; without waiting
    for another reader (the busy timeout is restored to ``busy_ms`` after). Whether it ran."""
    try:
        pages = int(db.execute("PRAGMA page_count").fetchone()[0])
        free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
        if free * size < VACUUM_MIN_BYTES or free < pages * VACUUM_SHARE:
            return False
        db.execute("PRAGMA busy_timeout = 0")
        try:
            db.execute("VACUUM")
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    except sqlite3.Error:  # busy, or no room for the copy: a later night tries again
        return False
    return True
