"""A read-only harvest writes nothing and keeps no states, yet merges a session spread over
several files (it reads the earlier files again) exactly as a recording run does."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.harvest import harvest, open_index
from skillopt_sleep.harvest._index import INDEX_NAME

PROJECT = "/home/dev/webapp"


def _line(sid: str, uuid: str, kind: str, text: str, second: int) -> str:
    return json.dumps(
        {
            "type": kind,
            "sessionId": sid,
            "cwd": PROJECT,
            "uuid": uuid,
            "timestamp": f"2026-11-20T10:00:{second:02d}Z",
            "message": {"role": kind, "content": text},
        }
    )


def _continued(home: Path) -> None:
    folder = home / "projects" / "-home-dev-webapp"
    folder.mkdir(parents=True)
    first = [
        _line("s1", "u1", "user", "fix the login test", 1),
        _line("s1", "a1", "assistant", "ok", 2),
    ]
    later = [*first, _line("s1", "u2", "user", "now the signup test", 3)]  # --resume copies
    (folder / "s1.jsonl").write_text("\n".join(first) + "\n")
    (folder / "s2.jsonl").write_text("\n".join(later) + "\n")


def test_read_only_and_recording_runs_merge_alike(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _continued(home)
    state = tmp_path / "state"
    open_index(PROJECT, state).close()
    before = (state / INDEX_NAME).read_bytes()
    look = harvest(PROJECT, ("claude",), None, state, homes={"claude": home}, commit=False)
    assert (state / INDEX_NAME).read_bytes() == before  # nothing written
    night = harvest(PROJECT, ("claude",), None, state, homes={"claude": home}, commit=True)
    assert look.sessions == night.sessions
    (session,) = look.sessions
    assert [t.text for t in session.user_turns] == ["fix the login test", "now the signup test"]
    assert len(session.source_files) == 2
