"""Codex specifics: the older event shapes, mirrored messages, preambles, exit codes, archives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest import harvest
from skillopt_sleep.records import SignalKind

CWD = "/home/dev/webapp"
SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"


def _line(kind: str, payload: dict[str, Any], second: int) -> dict[str, Any]:
    return {"timestamp": f"2026-11-20T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def _older_rollout() -> list[dict[str, Any]]:
    """The pre-0.16x shapes: event_msg user_message/agent_message mirrored by response_items."""
    return [
        _line("session_meta", {"id": SID, "cwd": CWD, "git": {"branch": "feature"}}, 0),
        _line("turn_context", {"cwd": CWD, "model": "gpt-5-codex"}, 1),
        _line(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "<permissions instructions>..."}],
            },
            1,
        ),
        _line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "# AGENTS.md instructions for /home/dev/webapp\n...",
                    },
                    {
                        "type": "input_text",
                        "text": "<environment_context><cwd>/home/dev/webapp</cwd></environment_context>",
                    },
                ],
            },
            1,
        ),
        _line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "run the tests"}],
            },
            2,
        ),
        _line("event_msg", {"type": "user_message", "message": "run the tests"}, 2),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["pytest", "-q"]}),
                "call_id": "c1",
            },
            3,
        ),
        _line(
            "event_msg",
            {
                "type": "exec_command_end",
                "call_id": "c1",
                "exit_code": 1,
                "aggregated_output": "1 failed",
            },
            4,
        ),
        _line(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}}),
            },
            4,
        ),
        _line("event_msg", {"type": "agent_message", "message": "One test fails."}, 5),
        _line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "One test fails."}],
            },
            5,
        ),
        _line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}, 6),
        _line("event_msg", {"type": "user_message", "message": "that's wrong, it still fails"}, 7),
    ]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_older_shapes_mirrors_and_preambles(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    _write(
        home / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{SID}.jsonl",
        _older_rollout(),
    )
    (session,) = harvest(CWD, sources=("codex",), index=":memory:", homes={"codex": home}).sessions
    assert session.session_id == SID
    assert (session.model, session.git_branch) == ("gpt-5-codex", "feature")
    assert [(t.role, t.text) for t in session.turns] == [
        ("user", "run the tests"),
        ("assistant", "One test fails."),
        ("user", "that's wrong, it still fails"),
    ]
    (call,) = session.turns[1].tool_calls
    assert (call.name, call.input_excerpt, call.exit_code, call.is_error) == (
        "shell",
        "pytest -q",
        1,
        True,
    )
    assert call.result_excerpt == "1 failed"
    kinds = {s.kind for s in session.signals}
    assert {SignalKind.TOOL_ERROR, SignalKind.INTERRUPTED, SignalKind.CORRECTION} <= kinds


def test_archived_sessions_and_codex_home(tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "codex-home"
    _write(
        home / "archived_sessions" / f"rollout-2026-11-20T10-00-00-{SID}.jsonl", _older_rollout()
    )
    monkeypatch.setenv("CODEX_HOME", str(home))
    (session,) = harvest(CWD, sources=("codex",), index=":memory:").sessions
    assert session.session_id == SID


def test_archiving_moves_the_file_without_re_emitting_it(tmp_path: Path) -> None:
    """Sessions are keyed by identity: a rollout moved to archived_sessions/ is not new."""
    home = tmp_path / ".codex"
    live = home / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{SID}.jsonl"
    _write(live, _older_rollout())
    index = tmp_path / "idx"
    assert len(harvest(CWD, sources=("codex",), index=index, homes={"codex": home}).sessions) == 1
    archived = home / "archived_sessions" / live.name
    archived.parent.mkdir(parents=True)
    live.rename(archived)
    again = harvest(CWD, sources=("codex",), index=index, homes={"codex": home})
    assert again.sessions == ()
    assert again.stats["codex"].skipped_sessions == {"nothing new since the last harvest": 1}
    with archived.open("a", encoding="utf-8") as handle:  # resumed after archiving: only news
        handle.write(
            '{"timestamp":"2026-11-20T10:09:00Z","type":"event_msg",'
            '"payload":{"type":"user_message","message":"and one more thing"}}\n'
        )
    grown = harvest(CWD, sources=("codex",), index=index, homes={"codex": home})
    (session,) = grown.sessions
    assert session.user_turns[-1].text == "and one more thing"
    assert grown.first_new[f"codex:{SID}"] == len(session.turns) - 1
