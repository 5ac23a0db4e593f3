"""Bounded retention of the archive's cached family verdicts (``confirmations``).

A verdict is keyed by the hash of its family's request texts, so a family that gains or loses a
request is asked about under a new hash and its old verdict is never read again: without a
trim, one or more dead rows a night for years. Every archive opened that asked for or stored a
verdict is a *run* (a night's mining; a ``mine`` preview on the project's archive too): when it
closes, :func:`stamp_used` numbers the run (``meta``) and stamps the verdicts it used with it in
``confirmations_used``. Every family a run clusters is looked up (a cached one, before the
night's call budget is counted), so the verdicts a run did not stamp are those of families that
no longer exist as they were. :func:`retain_confirmations` then keeps:

- every verdict the last run used (whatever the cap: a night never loses one it can ask about);
- the others used within the last ``CONFIRM_KEEP_RUNS`` runs, at most ``CONFIRM_CAP`` of them
  (the most recently used).

It runs in one transaction: a kill leaves the archive as it was, or trimmed. A verdict stored
before runs were stamped (or by an older version, whose inserts know only the verdicts table)
gets its clock started by the next trim instead of being dropped. A dropped verdict costs one
model call if its family ever comes back, within the night's ``confirm_budget`` like any other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

CONFIRM_KEEP_RUNS = 30  # a month of nights: a verdict unused that long is of a family changed since
CONFIRM_CAP = 2000  # older verdicts kept beside the last run's (~100 bytes each, ~200 KB at most)
RUN_KEY = "confirmation-runs"  # meta: the number of the last run that used a verdict


def stamp_used(db: sqlite3.Connection, hashes: Iterable[str]) -> int:
    """Number a new run and stamp ``hashes`` (the verdicts it used) with it; returns the run."""
    with db:
        db.execute(
            "INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET "
            "value = CAST(value AS INTEGER) + 1",
            (RUN_KEY,),
        )
        run = int(db.execute("SELECT value FROM meta WHERE key = ?", (RUN_KEY,)).fetchone()[0])
        db.executemany(
            "INSERT OR REPLACE INTO confirmations_used VALUES (?, ?)",
            [(digest, run) for digest in sorted(hashes)],
        )
    return run


def retain_confirmations(
    db: sqlite3.Connection, keep_runs: int | None = None, cap: int | None = None
) -> int:
    """Drop the verdicts the module doc says go (defaults: the module's constants, read at
    call time); returns how many were dropped."""
    keep = CONFIRM_KEEP_RUNS if keep_runs is None else keep_runs
    most = CONFIRM_CAP if cap is None else cap
    with db:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (RUN_KEY,)).fetchone()
        run = int(row[0]) if row else 0
        db.execute(  # never stamped: its clock starts now
            "INSERT INTO confirmations_used SELECT family_hash, ? FROM confirmations "
            "WHERE family_hash NOT IN (SELECT family_hash FROM confirmations_used)",
            (run,),
        )
        db.execute(
            "DELETE FROM confirmations_used WHERE run <= ? "
            "OR family_hash NOT IN (SELECT family_hash FROM confirmations)",
            (run - keep,),
        )
        db.execute(
            "DELETE FROM confirmations_used WHERE family_hash IN (SELECT family_hash FROM "
            "confirmations_used WHERE run < ? ORDER BY run DESC, family_hash LIMIT -1 OFFSET ?)",
            (run, most),
        )
        dropped = db.execute(
            "DELETE FROM confirmations WHERE family_hash NOT IN "
            "(SELECT family_hash FROM confirmations_used)"
        ).rowcount
    return int(dropped)
