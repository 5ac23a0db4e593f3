"""Claude Code specifics: sidechains, interrupts, harness noise, continued sessions across files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt_core.markers import ENGINE_MARKER
from skillopt_sleep.harvest import harvest
from skillopt_sleep.records import SignalKind

CWD = "/home/dev/webapp"


def _record(kind: str, uid: str, content: Any, **extra: Any) -> dict[str, Any]:
    role = "assistant" if kind == "assistant" else "user"
    return {
        "type": kind,
        "uuid": uid,
        "sessionId": extra.pop("session", "s1"),
        "cwd": CWD,
        "gitBranch": "main",
        "timestamp": extra.pop("ts", "2026-11-20T10:00:00Z"),
        "isSidechain": extra.pop("sidechain", False),
        "message": {"role": role, "content": content, "model": "claude-x"},
        **extra,
    }


def _write(home: Path, name: str, records: list[dict[str, Any]]) -> Path:
    folder = home / "projects" / "-home-dev-webapp"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _harvest(home: Path, **kwargs: Any):  # type: ignore[no-untyped-def]
    return harvest(CWD, sources=("claude",), index=":memory:", homes={"claude": home}, **kwargs)


def test_tool_errors_interrupts_and_noise(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _write(
        home,
        "s1.jsonl",
        [
            _record("user", "u1", "run the tests please"),
            _record(
                "assistant",
                "a1",
                [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}}],
            ),
            _record(
                "user",
                "u2",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "2 failed"}],
                        "is_error": True,
                    }
                ],
            ),
            _record("user", "u3", [{"type": "text", "text": "[Request interrupted by user]"}]),
            _record(
                "user",
                "u4",
                "<local-command-caveat>Caveat: ...</local-command-caveat>",
                isMeta=True,
            ),
            _record("assistant", "a2", [{"type": "text", "text": "side quest"}], sidechain=True),
            _record("user", "u5", "still failing, try again"),
        ],
    )
    (session,) = _harvest(home).sessions
    assert [t.role for t in session.turns] == ["user", "assistant", "user"]
    call = session.turns[1].tool_calls[0]
    assert (call.name, call.input_excerpt, call.result_excerpt, call.is_error) == (
        "Bash",
        "pytest",
        "2 failed",
        True,
    )
    kinds = {(s.kind, s.turn_index) for s in session.signals}
    assert {
        (SignalKind.TOOL_ERROR, 0),
        (SignalKind.INTERRUPTED, 0),
        (SignalKind.CORRECTION, 0),
    } <= kinds
    assert "side quest" not in session.turns[1].text


def test_subagent_files_excluded_by_default(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _write(home, "s1.jsonl", [_record("user", "u1", "main request")])
    sub = home / "projects" / "-home-dev-webapp" / "s1" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-1.jsonl").write_text(
        json.dumps(_record("user", "x1", "agent work", session="agent")) + "\n"
    )
    assert {s.session_id for s in _harvest(home).sessions} == {"s1"}
    both = _harvest(home, include_sidechains=True)
    assert {s.session_id for s in both.sessions} == {"s1", "agent"}


def test_resumed_session_across_files_is_one_session(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    first = [_record("user", "u1", "fix the login test", ts="2026-11-20T10:00:00Z")]
    _write(home, "a.jsonl", first)
    again = [*first, _record("user", "u2", "no, that's wrong", ts="2026-11-20T11:00:00Z")]
    _write(home, "b.jsonl", again)  # a resume that copied the history into a new file
    (session,) = _harvest(home).sessions
    assert [t.text for t in session.user_turns] == ["fix the login test", "no, that's wrong"]
    assert len(session.source_files) == 2


def test_engine_sessions_are_never_harvested(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _write(
        home,
        "s1.jsonl",
        [_record("user", "u1", f"{ENGINE_MARKER}\n## CURRENT SKILL\n...", entrypoint="sdk-cli")],
    )
    _write(
        home,
        "s2.jsonl",
        [_record("user", "u2", "a real request", session="s2", entrypoint="sdk-cli")],
    )
    result = _harvest(home)
    assert {s.session_id for s in result.sessions} == {"s2"}
    assert result.stats["claude"].skipped_sessions["engine session"] == 1


def test_claude_config_dir_is_honoured(tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "custom-claude"
    _write(home, "s1.jsonl", [_record("user", "u1", "via env")])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    result = harvest(CWD, sources=("claude",), index=":memory:")
    assert [s.session_id for s in result.sessions] == ["s1"]
