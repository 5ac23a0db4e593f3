"""SQLite failures as the project's errors, so no caller ever shows a raw ``sqlite3`` traceback.

A lock held past the busy timeout is a :class:`BusyError` (exit 5); a damaged file, a full disk or
an unusable state directory is a :class:`StorageError` with the way out. Used by the harvest index
and the miner's archive, each naming itself and how to recover from damage.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from skillopt_core.errors import BusyError, StorageError


@contextlib.contextmanager
def guarded(location: str, what: str, damaged_hint: str) -> Iterator[None]:
    """SQLite failures as our errors: busy -> BusyError, anything else -> StorageError.

    ``what``: the database's name for the user (``the harvest index``); ``damaged_hint``: what to
    do when the file is damaged."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise BusyError(
                f"{what} {location} is busy (another run is using it)",
                hint="wait for the other run to finish, then run again",
            ) from None
        raise StorageError(
            f"{what} {location} cannot be used: {text}",
            hint="check the disk and the permissions of the state directory",
        ) from None
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{what} {location} is damaged: {exc}", hint=damaged_hint) from None
    except OSError as exc:  # the state directory cannot be made or opened
        raise StorageError(
            f"{what} {location} cannot be created: {exc.strerror or exc}",
            hint="check the state directory (--state-dir) exists and is writable",
        ) from None


# Stores that keep redacted text (the harvest index, the miner's archive) record the rules it was
# redacted with, and redact it again under other rules (see ``rules_fingerprint``).
FINGERPRINT_KEY = "redaction-rules"
WIPE_KEY = "free-pages-to-wipe"  # set with a redaction, cleared once the file is rewritten


def stored_fingerprint(db: sqlite3.Connection) -> str | None:
    """The redaction rules' fingerprint a store's ``meta`` table records (None: never recorded)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (FINGERPRINT_KEY,)).fetchone()
    return str(row[0]) if row else None


def wipe_free_pages(db: sqlite3.Connection) -> None:
    """Rewrite the file (``VACUUM``) once after a redaction, outside any transaction: pages an
    older version freed without ``secure_delete`` may still hold the old text. Owed until done:
    a file another connection holds is wiped at a later open."""
    if db.execute("SELECT 1 FROM meta WHERE key = ?", (WIPE_KEY,)).fetchone() is None:
        return
    try:
        db.execute("VACUUM")
    except sqlite3.OperationalError:  # busy: another run reads it; the next open wipes it
        return
    with db:
        db.execute("DELETE FROM meta WHERE key = ?", (WIPE_KEY,))
