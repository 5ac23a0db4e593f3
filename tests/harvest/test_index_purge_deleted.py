"""A committed harvest forgets the transcripts the harnesses deleted.

Before, the index kept every file's row and its saved parse forever (about 8.6 KB a session),
including transcripts the harness had deleted (Claude Code deletes sessions older than 30 days):
some 60 MB a year at 20 sessions a day. Now a recording run purges the rows of files confirmed
gone, and a purged file that comes back is read as new.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from harvest._copilot import copilot_home, events_file
from harvest._fixtures import WEBAPP, claude_file, codex_file
from skillopt_sleep.harvest import HarvestIndex, HarvestResult, HarvestRun, harvest
from skillopt_sleep.harvest._index import INDEX_NAME, digest

CLAUDE_ID = "0eb5a987-d3fd-4cfb-a878-1c75c9ebca4a"
CODEX_ID = "01a1fdf8-5ac2-7210-abf4-40331b84a128"


def _night(homes: dict[str, Path], tmp_path: Path, **kwargs: object) -> HarvestResult:
    return harvest(
        WEBAPP, sources=("claude", "codex"), index=tmp_path / "idx", homes=homes, **kwargs
    )  # type: ignore[arg-type]


def _db(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "idx" / INDEX_NAME)


def _has_row(tmp_path: Path, path: Path) -> bool:
    with _db(tmp_path) as db:
        found = db.execute("SELECT 1 FROM files WHERE fkey=?", (digest(str(path)),)).fetchone()
    return found is not None


def _rows(tmp_path: Path) -> int:
    with _db(tmp_path) as db:
        return int(db.execute("SELECT count(*) FROM files").fetchone()[0])


def _delivered(tmp_path: Path, session_key: str) -> bool:
    with _db(tmp_path) as db:
        found = db.execute("SELECT 1 FROM delivered WHERE session_key=?", (session_key,)).fetchone()
    return found is not None


def test_a_deleted_transcript_leaves_no_row(homes: dict[str, Path], tmp_path: Path) -> None:
    _night(homes, tmp_path)
    rows = _rows(tmp_path)
    claude, codex = claude_file(homes, CLAUDE_ID), codex_file(homes, CODEX_ID)
    assert _has_row(tmp_path, claude) and _has_row(tmp_path, codex)
    claude.unlink()
    codex.unlink()
    again = _night(homes, tmp_path)
    assert again.sessions == ()
    assert not _has_row(tmp_path, claude) and not _has_row(tmp_path, codex)
    assert _rows(tmp_path) == rows - 2
    with _db(tmp_path) as db:  # no saved parse of a gone file is left anywhere
        assert db.execute("SELECT count(*) FROM files WHERE state IS NOT NULL").fetchone()[0] > 0
    # what was delivered of a gone session is kept (~100 bytes): were it forgotten, a rollout
    # skipped as older than a run's window would later be delivered again as new
    _night(homes, tmp_path)
    assert _delivered(tmp_path, CLAUDE_ID) and _delivered(tmp_path, CODEX_ID)


def test_purging_is_part_of_the_commit(homes: dict[str, Path], tmp_path: Path) -> None:
    """A run that is not committed (killed, or its delivery failed) purges nothing."""
    _night(homes, tmp_path)
    claude = claude_file(homes, CLAUDE_ID)
    claude.unlink()
    with HarvestIndex.for_state_dir(tmp_path / "idx") as index, index.locked():
        run = HarvestRun(WEBAPP, ("claude",), None, index, homes=homes)
        run.drain()
        index.rollback()
    assert _has_row(tmp_path, claude)
    _night(homes, tmp_path)
    assert not _has_row(tmp_path, claude)


def test_a_file_back_after_a_night_is_read_whole_and_not_delivered_twice(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """A file away for a night (moved out and back, same inode and times: what a row kept as
    "unchanged" would have hidden) is read again from its first byte."""
    _night(homes, tmp_path)
    claude = claude_file(homes, CLAUDE_ID)
    aside = tmp_path / "aside.jsonl"
    os.replace(claude, aside)
    _night(homes, tmp_path)
    assert not _has_row(tmp_path, claude)
    os.replace(aside, claude)
    back = _night(homes, tmp_path)
    assert back.stats["claude"].files_read == 1
    assert back.stats["claude"].bytes_read == claude.stat().st_size
    assert back.sessions == ()  # delivered before, nothing new
    assert _has_row(tmp_path, claude)


def test_a_file_back_long_after_is_not_delivered_again(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    _night(homes, tmp_path)
    claude = claude_file(homes, CLAUDE_ID)
    aside = tmp_path / "aside.jsonl"
    os.replace(claude, aside)
    _night(homes, tmp_path)
    _night(homes, tmp_path)
    os.replace(aside, claude)
    back = _night(homes, tmp_path)
    assert back.sessions == ()  # its row was purged, what it delivered is remembered


def test_a_rollout_archived_between_nights_is_not_new(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """Codex moves a rollout to ``archived_sessions/``; seen in neither place by one run (it
    moved while the run looked), it is purged, and the next run finds it where it went."""
    _night(homes, tmp_path)
    rollout = codex_file(homes, CODEX_ID)
    aside = tmp_path / rollout.name
    os.replace(rollout, aside)
    _night(homes, tmp_path)
    archived = homes["codex"] / "archived_sessions" / rollout.name
    archived.parent.mkdir()
    os.replace(aside, archived)
    later = _night(homes, tmp_path)
    assert later.sessions == () and later.stats["codex"].files_read == 1
    assert _has_row(tmp_path, archived) and not _has_row(tmp_path, rollout)


def test_a_deleted_folder_of_files_is_purged(homes: dict[str, Path], tmp_path: Path) -> None:
    """Codex's dated folders and Copilot's session folders go whole: the folder above is
    listed to prove it."""
    rollout = codex_file(homes, CODEX_ID)
    day = rollout.parent.with_name("20")
    day.mkdir()
    moved = day / rollout.name
    os.replace(rollout, moved)
    copilot = copilot_home(tmp_path)
    both = {**homes, "copilot": copilot}
    session = events_file(copilot, "fix")
    harvest(WEBAPP, sources=("codex", "copilot"), index=tmp_path / "idx", homes=both)
    assert _has_row(tmp_path, moved) and _has_row(tmp_path, session)
    shutil.rmtree(day)
    shutil.rmtree(session.parent)
    harvest(WEBAPP, sources=("codex", "copilot"), index=tmp_path / "idx", homes=both)
    assert not _has_row(tmp_path, moved) and not _has_row(tmp_path, session)


def test_unchanged_folders_are_not_listed_again(
    homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The purge costs no syscall per file: a folder is listed only when a file is missing."""
    from skillopt_sleep.harvest import _gone

    listed: list[str] = []
    real = _gone.Listings.__call__

    def counting(self: _gone.Listings, folder: str) -> dict[str, str] | None:
        listed.append(folder)
        return real(self, folder)

    monkeypatch.setattr(_gone.Listings, "__call__", counting)
    _night(homes, tmp_path)
    _night(homes, tmp_path)
    assert listed == []
    claude = claude_file(homes, CLAUDE_ID)
    claude.unlink()
    _night(homes, tmp_path)
    assert listed == [str(claude.parent)]


def test_a_month_of_nights_keeps_the_index_bounded(tmp_path: Path) -> None:
    """Three sessions a night, and the harness deletes those older than five nights: the index
    holds the rows of the files that exist (before, every session ever read)."""
    from harvest._fixtures import write_claude_session

    home = tmp_path / ".claude"
    folder = None
    for night in range(30):
        for n in range(3):
            turns = [("user", f"night {night} task {n}"), ("assistant", "done")]
            write_claude_session(home, turns, session_id=f"n{night}-{n}")
        folder = next((home / "projects").iterdir())
        for old in range(3):
            stale = folder / f"n{night - 5}-{old}.jsonl"
            stale.unlink(missing_ok=True)
        harvest(WEBAPP, sources=("claude",), index=tmp_path / "idx", homes={"claude": home})
    assert folder is not None
    files = len(list(folder.iterdir()))
    assert files == 15
    assert _rows(tmp_path) == files
    with _db(tmp_path) as db:  # what each session delivered stays: about 100 bytes a session
        assert (
            db.execute("SELECT count(*) FROM files WHERE state IS NOT NULL").fetchone()[0] <= files
        )
