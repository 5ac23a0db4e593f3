"""Redact the harvest index's cached file states again when the redaction rules changed.

The index keeps each transcript file's parsed, redacted state, so a grown file is finished from
its new bytes alone; a file that never changes again is never read again. A secret kind a later
version learns (a new token format, a fixed rule) would then stay in clear in those states for
good, and a grown file's earlier turns would be delivered from them. So the index records
:func:`~skillopt_core.redaction.rules_fingerprint` in its ``meta`` table, and under other rules:

* a recording run (one holding the index's run lock) redacts every stored state and session key
  of every project again before it plans, in one transaction that also moves every project's
  generation on (a run planned from the old states can no longer commit), then rewrites the file
  so freed pages keep no copy (owed until it succeeds, like the miner's archive);
* a read-only run redacts each state it reads, in memory (it never writes).

Stored text was redacted and cut before; redacting it again is what the archive does too: a
secret the old rules missed sits whole inside the kept text, or its cut fragment was dropped.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from skillopt_core.redaction import redact, redact_many
from skillopt_sleep._sqlite import FINGERPRINT_KEY, WIPE_KEY, stored_fingerprint
from skillopt_sleep.harvest._events import FileState, seal
from skillopt_sleep.harvest._index_schema import pack, unpack

_PAGE = 500  # file rows read and rewritten at a time
_BATCH = 16  # strings per redaction scan


def reseal(state: FileState) -> FileState:
    """``state`` with every text redacted again by the current rules (in place)."""
    seal(state.events, 0, state.meta)
    state.extra = _redacted(state.extra)
    return state


def _redacted(value: Any) -> Any:
    """``value`` (a JSON tree: a source's parser state, freshly unpacked) with every string
    redacted, in place."""
    found: list[tuple[Any, Any]] = []  # (container, key) of each string

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in items:
            if isinstance(item, str):
                found.append((node, key))
            elif isinstance(item, (dict, list)):
                walk(item)

    if isinstance(value, (dict, list)):
        walk(value)
    texts = [holder[key] for holder, key in found]
    cleaned: list[str] = []
    for start in range(0, len(texts), _BATCH):
        cleaned.extend(redact_many(texts[start : start + _BATCH]))
    for (holder, key), text in zip(found, cleaned, strict=True):
        holder[key] = text
    return value


def is_current(db: sqlite3.Connection, fingerprint: str) -> bool:
    """Whether every stored text was redacted under ``fingerprint``: recorded so, or nothing is
    stored yet (an index from before the fingerprint was recorded holds unknown rules' text)."""
    found = stored_fingerprint(db)
    if found is not None:
        return found == fingerprint
    return db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None


def reseal_index(db: sqlite3.Connection, fingerprint: str) -> bool:
    """Redact every stored state and session key again unless the index is current; True when
    it was. One transaction (a kill mid-way leaves the index as it was); then the file is owed a
    rewrite (:func:`~skillopt_sleep._sqlite.wipe_free_pages`)."""
    if is_current(db, fingerprint):
        _record(db, fingerprint)
        return False
    db.execute("PRAGMA secure_delete = ON")
    db.execute("BEGIN IMMEDIATE")  # read and rewrite under one lock
    try:
        if not is_current(db, fingerprint):
            last = -1
            while True:
                rows = db.execute(
                    "SELECT rowid, session_key, state FROM files WHERE rowid > ?"
                    " ORDER BY rowid LIMIT ?",
                    (last, _PAGE),
                ).fetchall()
                if not rows:
                    break
                last = rows[-1][0]
                db.executemany(
                    "UPDATE files SET session_key = ?, state = ? WHERE rowid = ?",
                    [
                        (redact(key), pack(reseal(unpack(blob))) if blob else blob, rowid)
                        for rowid, key, blob in rows
                    ],
                )
            _delivered(db)
            db.execute(
                "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
                " WHERE key LIKE 'generation:%'"
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (WIPE_KEY,))
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FINGERPRINT_KEY, fingerprint))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return True


def _record(db: sqlite3.Connection, fingerprint: str) -> None:
    """Record the rules of a fresh (empty) index, so it is never taken for an old one."""
    if stored_fingerprint(db) != fingerprint:
        with db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (FINGERPRINT_KEY, fingerprint))


def _delivered(db: sqlite3.Connection) -> None:
    """Move each delivered session to its key as now redacted; where two keys become one, the
    record of the longer delivery stands (a session is then never emitted again as new)."""
    rows = db.execute("SELECT project, source, session_key, turns, last FROM delivered").fetchall()
    moved = [(row, key) for row in rows if (key := redact(row[2])) != row[2]]
    db.executemany(
        "DELETE FROM delivered WHERE project = ? AND source = ? AND session_key = ?",
        [row[:3] for row, _ in moved],
    )
    db.executemany(
        "INSERT INTO delivered VALUES (?, ?, ?, ?, ?) ON CONFLICT(project, source, session_key)"
        " DO UPDATE SET turns = excluded.turns, last = excluded.last"
        " WHERE excluded.turns > delivered.turns",
        [(row[0], row[1], key, row[3], row[4]) for row, key in moved],
    )
