"""Poison pills: one bad record, link or folder never stops a harvest or hides other sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from faults._sessions import PROJECT, records, session_file, write_session
from skillopt_sleep.harvest import harvest


def _claude(home: Path, **kwargs: object):  # type: ignore[no-untyped-def]
    return harvest(PROJECT, sources=("claude",), index=":memory:", homes={"claude": home}, **kwargs)


@pytest.mark.parametrize(
    "stamp", ["9999-12-31T23:59:59-05:00", 1_763_630_000_000_000, "0001-01-01T00:00:00+14:00"]
)
def test_an_impossible_timestamp_skips_that_record_only(tmp_path: Path, stamp: object) -> None:
    home = tmp_path / ".claude"
    path = write_session(home, "s1", ["fix the login test", "now the signup test"])
    lines = path.read_text().splitlines()
    bad = json.loads(lines[2])
    bad["timestamp"] = stamp
    lines[2] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    for _ in range(2):  # and again: nothing poisons the next run either
        result = _claude(home)
        (session,) = result.sessions
        assert [t.text for t in session.user_turns] == ["fix the login test"]
        assert result.stats["claude"].skipped_lines == {"timestamp out of range": 1}


def test_invalid_utf8_is_replaced_not_dropped(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    path = write_session(home, "s1", ["fix the caf\u00e9 test"])
    path.write_bytes(path.read_bytes().replace(b"caf\\u00e9", b"caf\xe9"))  # Latin-1 byte
    (session,) = _claude(home).sessions
    assert session.user_turns[0].text == "fix the caf\ufffd test"


def test_a_self_looping_link_does_not_hide_the_other_sessions(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    loop = session_file(home, "loop")
    os.symlink(loop, loop)
    result = _claude(home)
    assert [s.session_id for s in result.sessions] == ["s1"]
    (reason,) = result.stats["claude"].skipped_files
    assert "loop.jsonl" in reason and "unreadable" in reason


def test_an_unreadable_directory_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / ".claude"
    write_session(home, "s1", ["fix the login test"])
    real = os.scandir

    def scandir(path: object) -> object:  # tests run as root, where chmod 000 still reads
        if str(path).endswith("projects"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    result = _claude(home)
    assert result.sessions == ()
    (reason,) = result.stats["claude"].skipped_files
    assert reason.startswith("unreadable: ") and "Permission denied" in reason


def test_an_unreadable_codex_folder_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / ".codex"
    (home / "sessions" / "2026").mkdir(parents=True)
    real = os.scandir

    def scandir(path: object) -> object:
        if str(path).endswith("2026"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    result = harvest(PROJECT, sources=("codex",), index=":memory:", homes={"codex": home})
    (reason,) = result.stats["codex"].skipped_files
    assert "2026" in reason and "Permission denied" in reason


def test_records_build_the_expected_session(tmp_path: Path) -> None:
    """The helper itself: two requests, two replies."""
    assert len(records("s", ["a", "b"])) == 4


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_pipe_or_device_posing_as_a_codex_rollout_is_skipped_not_read(tmp_path: Path) -> None:
    """Opening a FIFO waits for a writer forever, and /dev/zero never ends: both hung harvest."""
    day = tmp_path / ".codex" / "sessions" / "2026" / "11" / "20"
    day.mkdir(parents=True)
    os.mkfifo(day / "rollout-2026-11-20T10-00-00-66666666-6666-4666-9666-666666666666.jsonl")
    (day / "rollout-2026-11-20T10-00-01-77777777-7777-4777-9777-777777777777.jsonl").symlink_to(
        "/dev/zero"
    )
    result = harvest(PROJECT, sources=("codex",), index=":memory:", homes={"codex": day.parents[3]})
    assert result.sessions == ()
    assert dict(result.stats["codex"].skipped_files) == {
        "not a regular file (a pipe or a device)": 2
    }
