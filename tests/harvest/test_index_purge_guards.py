"""What never purges a row: a file a run did not look for is not a file that is gone.

Only a recording run purges, only a source it ran whose discovery read every place, and only a
file confirmed absent from a folder that run looked into. A harness home not configured this
run, a source left out with ``-s``, an unreadable place, a read-only run, another project's rows
and a file outside ``--since`` or filtered out by the source keep their rows.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

from harvest._fixtures import READING, WEBAPP, claude_file, codex_file
from skillopt_sleep.harvest import HarvestResult, harvest
from skillopt_sleep.harvest._index import INDEX_NAME, digest

CLAUDE_ID = "0eb5a987-d3fd-4cfb-a878-1c75c9ebca4a"
OTHER_CLAUDE_ID = "be2b29e4-b8e1-43fd-a76c-e21c0cbf580e"
READING_CODEX_ID = "01a1fdf8-bf91-76c2-b1d8-a0d532212bf5"


def _night(
    homes: dict[str, Path], tmp_path: Path, project: str = WEBAPP, **kwargs: object
) -> HarvestResult:
    kwargs.setdefault("sources", ("claude", "codex"))
    return harvest(project, index=tmp_path / "idx", homes=homes, **kwargs)  # type: ignore[arg-type]


def _rows_of(tmp_path: Path, path: Path) -> dict[str, bool]:
    """Project digest -> whether its row of ``path`` holds a parse."""
    with sqlite3.connect(tmp_path / "idx" / INDEX_NAME) as db:
        found = db.execute(
            "SELECT project, state IS NOT NULL FROM files WHERE fkey=?", (digest(str(path)),)
        ).fetchall()
    return {str(project): bool(state) for project, state in found}


def _has_row(tmp_path: Path, path: Path) -> bool:
    return bool(_rows_of(tmp_path, path))


def test_a_home_not_configured_this_run_keeps_its_rows(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    _night(homes, tmp_path)
    gone = claude_file(homes, CLAUDE_ID)
    other = tmp_path / "other" / ".claude"
    shutil.copytree(homes["claude"], other)  # the same project in another Claude home
    (other / gone.relative_to(homes["claude"])).unlink()
    gone.unlink()
    _night({**homes, "claude": other}, tmp_path)
    assert _has_row(tmp_path, gone)  # the first home was not looked into
    _night(homes, tmp_path)
    assert not _has_row(tmp_path, gone)


def test_a_source_left_out_keeps_its_rows(homes: dict[str, Path], tmp_path: Path) -> None:
    _night(homes, tmp_path)
    gone = claude_file(homes, CLAUDE_ID)
    gone.unlink()
    _night(homes, tmp_path, sources=("codex",))
    assert _has_row(tmp_path, gone)
    _night(homes, tmp_path, sources=("claude",))
    assert not _has_row(tmp_path, gone)


def test_an_unreadable_place_purges_nothing_of_its_source(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    _night(homes, tmp_path)
    gone = claude_file(homes, CLAUDE_ID)
    gone.unlink()
    loop = gone.with_name("loop.jsonl")
    loop.symlink_to(loop.name)  # a link to itself: discovery cannot tell what it is
    result = _night(homes, tmp_path)
    assert any(k.startswith("unreadable:") for k in result.stats["claude"].skipped_files)
    assert _has_row(tmp_path, gone)
    loop.unlink()
    _night(homes, tmp_path)
    assert not _has_row(tmp_path, gone)


def test_a_read_only_run_purges_nothing(homes: dict[str, Path], tmp_path: Path) -> None:
    _night(homes, tmp_path)
    gone = claude_file(homes, CLAUDE_ID)
    gone.unlink()
    _night(homes, tmp_path, commit=False)
    assert _has_row(tmp_path, gone)


def test_a_file_outside_since_is_kept_and_not_read_again(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """``--since`` leaves old files unread, never forgotten: nights always have a window, and a
    file outside it was still found, so it keeps its row (only a gone file loses its own)."""
    _night(homes, tmp_path)
    kept, gone = claude_file(homes, OTHER_CLAUDE_ID), claude_file(homes, CLAUDE_ID)
    month_ago = time.time() - 30 * 86400
    os.utime(kept, (month_ago, month_ago))  # changed, but too long ago for a 7-day window
    gone.unlink()
    windowed = _night(homes, tmp_path, since="7d")
    assert windowed.stats["claude"].skipped_files["older than --since (left unread)"] == 1
    assert _has_row(tmp_path, kept) and not _has_row(tmp_path, gone)
    assert _night(homes, tmp_path, since="7d").sessions == ()
    assert _has_row(tmp_path, kept)


def test_another_projects_rows_in_the_shared_codex_tree_are_its_own(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    """Both projects keep a row of each rollout in Codex's one dated tree (the other's as out of
    scope); a run purges only its own project's rows."""
    _night(homes, tmp_path, sources=("codex",))
    _night(homes, tmp_path, READING, sources=("codex",))
    rollout = codex_file(homes, READING_CODEX_ID)
    webapp, reading = digest(WEBAPP), digest(READING)
    assert _rows_of(tmp_path, rollout) == {webapp: False, reading: True}
    rollout.unlink()
    _night(homes, tmp_path, sources=("codex",))
    assert _rows_of(tmp_path, rollout) == {reading: True}
    assert _night(homes, tmp_path, READING, sources=("codex",)).sessions == ()
    assert _rows_of(tmp_path, rollout) == {}


def test_a_file_the_source_filters_out_is_not_gone(homes: dict[str, Path], tmp_path: Path) -> None:
    """A sub-agent transcript read with ``--include-sidechains`` and left out later is still
    there: its row stays, and it is not read again when sub-agents are asked for again."""
    main = claude_file(homes, CLAUDE_ID)
    agent = main.with_name("agent-1234.jsonl")
    shutil.copyfile(main, agent)
    _night(homes, tmp_path, include_sidechains=True)
    assert _has_row(tmp_path, agent)
    _night(homes, tmp_path)
    assert _has_row(tmp_path, agent)
    again = _night(homes, tmp_path, include_sidechains=True)
    assert again.stats["claude"].files_read == 0
