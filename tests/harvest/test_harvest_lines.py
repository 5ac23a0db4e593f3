"""The incremental reader: complete lines only, huge lines and binary garbage in constant memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from harvest._fixtures import iter_lines
from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._lines import LineRead


def test_reads_complete_lines_and_leaves_the_half_line(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a":1}\n\n{"b":2}\n{"c":')
    read = LineRead(0)
    assert list(iter_lines(path, 0, read)) == [b'{"a":1}', b'{"b":2}']
    assert read.offset == 17 and read.tail == b'{"c":'
    again = LineRead(0)
    assert list(iter_lines(path, read.offset, again)) == [] and again.offset == 17


def test_fifty_megabyte_line_is_skipped_without_buffering(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"before":1}\n{"x":"')
        chunk = b"a" * (1 << 20)
        for _ in range(50):
            handle.write(chunk)
        handle.write(b'"}\n{"after":2}\n')
    read = LineRead(0)
    tracemalloc.start()
    lines = list(iter_lines(path, 0, read, max_line=8 << 20))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert lines == [b'{"before":1}', b'{"after":2}']
    assert read.oversized == 1 and read.offset == path.stat().st_size
    assert peak < 40 << 20


def _claude_line(text: str, uid: str) -> bytes:
    record = {
        "type": "user",
        "uuid": uid,
        "sessionId": "s1",
        "cwd": "/home/dev/webapp",
        "timestamp": "2026-11-20T10:00:00Z",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(record).encode() + b"\n"


def test_garbage_is_counted_never_fatal(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "projects" / "-home-dev-webapp"
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_bytes(
        _claude_line("first request here", "u1")
        + b"\x00\xff\xfe garbage \x89PNG\r\n"
        + b'{"type":"user","message":\n'
        + b"[1,2,3]\n"
        + b'{"type":"brand-new-record"}\n'
        + _claude_line("no, that is wrong", "u2")
    )
    (folder / "binary.jsonl").write_bytes(bytes(range(256)) * 64)
    unreadable = folder / "locked.jsonl"
    unreadable.mkdir()  # a directory named like a transcript: skipped by discovery
    result = harvest(
        "/home/dev/webapp",
        sources=("claude",),
        index=":memory:",
        homes={"claude": tmp_path / ".claude"},
    )
    (session,) = result.sessions
    assert [t.text for t in session.user_turns] == ["first request here", "no, that is wrong"]
    skipped = result.stats["claude"].skipped_lines
    assert skipped["malformed json"] >= 3
    assert skipped["not a json object"] == 1
    assert skipped["unknown record type"] == 1
