"""Redacting an archive again also wipes the pages an older version freed without
``secure_delete`` (the default outside Debian's SQLite): before, a reply rewritten since still
held the secret in the file's free pages (found by a review)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep._sqlite import WIPE_KEY, wipe_free_pages
from skillopt_sleep.mine import Archive
from tests.mine.test_probe26_reredact import REQUEST, SECRET, _asked, _file_bytes, previous_rules


def test_pages_an_older_version_freed_keep_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect = sqlite3.connect

    def as_an_older_version(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.execute("PRAGMA secure_delete = OFF")
        return db

    path = tmp_path / "mine-archive.sqlite3"
    with monkeypatch.context() as patched:
        patched.setattr(sqlite3, "connect", as_an_older_version)
        with previous_rules(), Archive(path) as archive:
            archive._db.execute("PRAGMA secure_delete = OFF")
            asked = _asked(REQUEST, "s1", 0)
            archive.add([asked], "2026-11-05")
            archive.add([replace(asked, reply=asked.reply + " and " + "y" * 9000)], "2026-11-06")
            archive.add([asked], "2026-11-07")
    with Archive(path) as archive:
        assert archive.requests()
    assert SECRET.encode() not in _file_bytes(path)


def _owed(archive: Archive) -> bool:
    found = archive._db.execute("SELECT 1 FROM meta WHERE key = ?", (WIPE_KEY,)).fetchone()
    return found is not None


def test_a_wipe_the_file_was_too_busy_for_is_done_at_the_next_open(tmp_path: Path) -> None:
    """A run that starts reading between the redaction's commit and its ``VACUUM`` makes the
    wipe fail: it stays owed, and the next open does it."""
    path = tmp_path / "mine-archive.sqlite3"
    with Archive(path) as archive:
        archive.add([_asked(REQUEST, "s1", 0)], "2026-11-05")
        assert not _owed(archive)
        with archive._db:
            archive._db.execute("INSERT INTO meta VALUES (?, '1')", (WIPE_KEY,))
        reader = sqlite3.connect(str(path))
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM requests").fetchone()  # a read in progress
        archive._db.execute("PRAGMA busy_timeout = 0")  # fail at once, not after 5 s
        wipe_free_pages(archive._db)
        assert _owed(archive)
        reader.close()
    with Archive(path) as archive:
        assert not _owed(archive)
