"""An index written before places were recorded (schema 3) is kept, not read again, and its
rows learn where their files are, so they too are purged once their files are deleted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from harvest._fixtures import WEBAPP, claude_file
from skillopt_sleep.harvest import HarvestResult, harvest
from skillopt_sleep.harvest._index import INDEX_NAME, digest

CLAUDE_ID = "0eb5a987-d3fd-4cfb-a878-1c75c9ebca4a"
V3_FILES = """
CREATE TABLE files (
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
)"""
V3_COLUMNS = (
    "project, fkey, source, dev, ino, size, mtime_ns, head_len, head_hash, offset, session_key,"
    " in_scope, state"
)


def _night(homes: dict[str, Path], tmp_path: Path) -> HarvestResult:
    return harvest(WEBAPP, sources=("claude", "codex"), index=tmp_path / "idx", homes=homes)


def _as_schema_3(location: Path) -> None:
    """Rewrite the index as version 3 wrote it: the same rows, no place column."""
    with sqlite3.connect(location) as db:
        db.execute("ALTER TABLE files RENAME TO files_now")
        db.execute("DROP INDEX files_by_session")
        db.execute(V3_FILES)
        db.execute(f"INSERT INTO files SELECT {V3_COLUMNS} FROM files_now")
        db.execute("DROP TABLE files_now")
        db.execute("CREATE INDEX files_by_session ON files (project, source, session_key)")
        db.execute("UPDATE meta SET value='3' WHERE key='schema'")


def _places(location: Path) -> dict[str, str]:
    with sqlite3.connect(location) as db:
        return dict(db.execute("SELECT fkey, place FROM files").fetchall())


def test_a_schema_3_index_is_kept_and_its_rows_learn_their_places(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    location = tmp_path / "idx" / INDEX_NAME
    first = _night(homes, tmp_path)
    assert first.sessions
    rows = len(_places(location))
    _as_schema_3(location)
    upgraded = _night(homes, tmp_path)
    assert upgraded.sessions == ()  # nothing delivered again
    assert all(s.files_read == 0 for s in upgraded.stats.values())  # nothing read again
    places = _places(location)
    assert len(places) == rows and all(places.values())
    with sqlite3.connect(location) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("4",)
    gone = claude_file(homes, CLAUDE_ID)
    gone.unlink()
    _night(homes, tmp_path)
    assert digest(str(gone)) not in _places(location)


def test_a_row_of_schema_3_whose_file_is_gone_is_kept(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """Where a file deleted before the upgrade was is unknown: its row stays (it may be in a
    home this run did not look into)."""
    location = tmp_path / "idx" / INDEX_NAME
    _night(homes, tmp_path)
    _as_schema_3(location)
    gone = claude_file(homes, CLAUDE_ID)
    gone.unlink()
    _night(homes, tmp_path)
    assert _places(location)[digest(str(gone))] == ""


def test_an_index_from_a_newer_version_is_refused_not_wiped(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """Any other version dropped every table: an older engine still running (a daemon, an MCP
    server) wiped the index a newer one wrote, and the whole window was delivered again."""
    import pytest

    from skillopt_core.errors import StorageError

    _night(homes, tmp_path)
    location = tmp_path / "idx" / INDEX_NAME
    with sqlite3.connect(location) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='schema'")
        rows = db.execute("SELECT count(*) FROM files").fetchone()[0]
    with pytest.raises(StorageError, match="written by a newer skillopt-sleep"):
        _night(homes, tmp_path)
    with sqlite3.connect(location) as db:
        assert db.execute("SELECT count(*) FROM files").fetchone()[0] == rows > 0
