"""A second night reads only new files and appended bytes, and still assembles whole sessions."""

from __future__ import annotations

import os
import time
from pathlib import Path

from harvest._fixtures import WEBAPP, claude_file, codex_file
from skillopt_sleep.harvest import HarvestResult, harvest
from skillopt_sleep.records import SignalKind

CLAUDE_ID = "0eb5a987-d3fd-4cfb-a878-1c75c9ebca4a"
CODEX_ID = "01a1fdf8-5ac2-7210-abf4-40331b84a128"


def _night(homes: dict[str, Path], tmp_path: Path, **kwargs: object) -> HarvestResult:
    return harvest(
        WEBAPP, sources=("claude", "codex"), index=tmp_path / "idx", homes=homes, **kwargs
    )  # type: ignore[arg-type]


def _split(path: Path, marker: str, occurrence: int = 1) -> bytes:
    """Cut ``path`` before the n-th line containing ``marker``; return the removed tail."""
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    cut = [i for i, line in enumerate(lines) if marker.encode() in line][occurrence - 1]
    head, tail = b"".join(lines[:cut]), b"".join(lines[cut:])
    path.write_bytes(head)
    return tail


def test_nothing_new_reads_nothing(homes: dict[str, Path], tmp_path: Path) -> None:
    assert len(_night(homes, tmp_path).sessions) == 8
    again = _night(homes, tmp_path)
    assert again.sessions == ()
    for stats in again.stats.values():
        assert stats.bytes_read == 0 and stats.files_read == 0
        assert stats.files_unchanged == stats.files_seen > 0


def test_uncommitted_harvest_does_not_advance(homes: dict[str, Path], tmp_path: Path) -> None:
    assert len(_night(homes, tmp_path, commit=False).sessions) == 8
    assert len(_night(homes, tmp_path).sessions) == 8
    assert _night(homes, tmp_path).sessions == ()


def test_continued_sessions_grow_into_one_session(homes: dict[str, Path], tmp_path: Path) -> None:
    claude_tail = _split(claude_file(homes, CLAUDE_ID), "no, that's wrong")
    codex_tail = _split(codex_file(homes, CODEX_ID), '"thread_settings_applied"', occurrence=2)
    first = {s.session_id: s for s in _night(homes, tmp_path).sessions}
    assert len(first[CLAUDE_ID].turns) == 2 and first[CLAUDE_ID].signals == ()
    assert len(first[CODEX_ID].turns) == 2 and first[CODEX_ID].signals == ()

    with claude_file(homes, CLAUDE_ID).open("ab") as handle:
        handle.write(claude_tail)
    with codex_file(homes, CODEX_ID).open("ab") as handle:
        handle.write(codex_tail)
    second = _night(homes, tmp_path)
    grown = {s.session_id: s for s in second.sessions}
    assert set(grown) == {CLAUDE_ID, CODEX_ID}
    for session_id in (CLAUDE_ID, CODEX_ID):
        session = grown[session_id]
        assert [t.role for t in session.turns] == ["user", "assistant", "user", "assistant"]
        assert session.turns[0].text == "fix the failing login test in tests/test_auth.py"
        assert [(s.kind, s.turn_index) for s in session.signals] == [(SignalKind.CORRECTION, 0)]
        assert session.turns[1].tool_calls[0].result_excerpt  # paired in the first night, kept
    assert second.stats["claude"].bytes_read == len(claude_tail)
    assert second.stats["codex"].bytes_read == len(codex_tail)


def test_half_written_line_waits_for_its_end(homes: dict[str, Path], tmp_path: Path) -> None:
    path = claude_file(homes, CLAUDE_ID)
    tail = _split(path, "no, that's wrong")
    line = next(x for x in tail.splitlines(keepends=True) if b'"type":"user"' in x)
    _night(homes, tmp_path)
    with path.open("ab") as handle:
        handle.write(line[:40])
    half = _night(homes, tmp_path)
    assert half.sessions == ()
    assert half.stats["claude"].skipped_lines["partial last line (left for next time)"] == 1
    with path.open("ab") as handle:
        handle.write(line[40:])
    done = _night(homes, tmp_path)
    (session,) = done.sessions
    assert session.user_turns[-1].text.startswith("no, that's wrong")
    assert done.stats["claude"].bytes_read == len(line)


def test_truncated_or_rewritten_file_is_read_again(homes: dict[str, Path], tmp_path: Path) -> None:
    _night(homes, tmp_path)
    path = claude_file(homes, CLAUDE_ID)
    _split(path, "no, that's wrong")  # the file shrinks in place
    (shrunk,) = _night(homes, tmp_path).sessions
    assert len(shrunk.turns) == 2
    replacement = path.with_suffix(".tmp")
    text = path.read_text().replace("fix the failing login test", "fix the flaky signup test!")
    replacement.write_text(text)
    os.replace(replacement, path)  # same size, new inode
    rewritten = _night(homes, tmp_path)
    (session,) = rewritten.sessions
    assert session.turns[0].text.startswith("fix the flaky signup test!")
    assert rewritten.stats["claude"].skipped_files["rewritten or truncated (re-read)"] == 1


def test_same_inode_same_size_rewrite_detected_by_head_hash(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    _night(homes, tmp_path)
    path = claude_file(homes, CLAUDE_ID)
    data = path.read_bytes()
    changed = data.replace(b"fix the failing login test", b"fix the flaky signup test!")
    with path.open("r+b") as handle:
        handle.write(changed)
    (session,) = _night(homes, tmp_path).sessions
    assert session.turns[0].text.startswith("fix the flaky signup test!")


def test_since_leaves_old_files_unread_for_later(homes: dict[str, Path], tmp_path: Path) -> None:
    old = claude_file(homes, CLAUDE_ID)
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))
    recent = _night(homes, tmp_path, since="7d")
    assert CLAUDE_ID not in {s.session_id for s in recent.sessions}
    assert recent.stats["claude"].skipped_files["older than --since (left unread)"] == 1
    later = _night(homes, tmp_path)
    assert {s.session_id for s in later.sessions} == {CLAUDE_ID}


def test_new_file_between_nights(homes: dict[str, Path], tmp_path: Path) -> None:
    path = claude_file(homes, CLAUDE_ID)
    moved = tmp_path / "aside.jsonl"
    path.rename(moved)
    assert CLAUDE_ID not in {s.session_id for s in _night(homes, tmp_path).sessions}
    moved.rename(path)
    (session,) = _night(homes, tmp_path).sessions
    assert session.session_id == CLAUDE_ID
