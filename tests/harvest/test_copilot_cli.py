"""The genuine Copilot CLI 1.0.102 session logs harvest correctly for both projects."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harvest._copilot import CLI_SESSIONS, copilot_home, events_file
from harvest._fixtures import FIXTURES, PLANTED_KEY, READING, WEBAPP
from skillopt_sleep.harvest import HarvestResult, harvest
from skillopt_sleep.jsonable import dumps
from skillopt_sleep.records import Session, SignalKind


@pytest.fixture
def home(tmp_path: Path) -> Path:
    if not (FIXTURES / ".copilot").is_dir():
        pytest.skip(f"genuine Copilot transcripts not found at {FIXTURES}")
    return copilot_home(tmp_path)


def _run(project: str, home: Path, tmp_path: Path) -> HarvestResult:
    return harvest(project, sources=("copilot",), index=tmp_path / "idx", homes={"copilot": home})


def _by_id(result: HarvestResult) -> dict[str, Session]:
    return {s.session_id: s for s in result.sessions if s.harness == "copilot"}


def test_webapp_sessions(home: Path, tmp_path: Path) -> None:
    sessions = _by_id(_run(WEBAPP, home, tmp_path))
    assert set(sessions) == {CLI_SESSIONS[k] for k in ("fix", "export", "again", "key")}
    fix = sessions[CLI_SESSIONS["fix"]]
    assert [t.role for t in fix.turns] == ["user", "assistant", "user", "assistant"]
    assert fix.turns[0].text == "fix the failing login test in tests/test_auth.py"
    assert fix.turns[2].text.startswith("no, that's wrong, the test still fails")
    assert [(s.kind, s.turn_index) for s in fix.signals] == [(SignalKind.CORRECTION, 0)]
    assert (fix.project, fix.cwd, fix.model, fix.git_branch) == (
        WEBAPP,
        WEBAPP,
        "gpt-4.1",
        "master",
    )
    assert fix.started_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert fix.started_at.isoformat() == "2026-11-21T11:57:57.188000+00:00"
    assert fix.started_at < fix.ended_at
    assert fix.source_files == (str(events_file(home, "fix")),)
    again = sessions[CLI_SESSIONS["again"]]
    assert [(s.kind, s.turn_index) for s in again.signals] == [(SignalKind.APPROVAL, 0)]


def test_tool_requests_are_paired_with_their_completion(home: Path, tmp_path: Path) -> None:
    result = _run(WEBAPP, home, tmp_path)
    for session in result.sessions:
        (tool,) = session.turns[1].tool_calls
        assert (tool.call_id, tool.name, tool.input_excerpt) == ("call_1", "bash", "ls -la")
        assert "README.md" in tool.result_excerpt
        assert (tool.is_error, tool.exit_code) == (False, 0)
    stats = result.stats["copilot"]
    assert (stats.sessions, stats.turns, stats.tool_calls, stats.tool_errors) == (4, 12, 4, 0)
    assert (stats.corrections, stats.skipped_line_count) == (1, 0)


def test_reading_project(home: Path, tmp_path: Path) -> None:
    result = _run(READING, home, tmp_path)
    sessions = _by_id(result)
    assert set(sessions) == {CLI_SESSIONS["summarize"], CLI_SESSIONS["format"]}
    fmt = sessions[CLI_SESSIONS["format"]]
    assert fmt.user_turns[1].text.startswith("wrong format")
    assert [s.kind for s in fmt.signals] == [SignalKind.CORRECTION]
    assert result.stats["copilot"].files_seen == 2  # webapp logs skipped via workspace.yaml


def test_planted_key_is_redacted_in_sessions_and_index(home: Path, tmp_path: Path) -> None:
    sessions = _by_id(_run(WEBAPP, home, tmp_path))
    keyed = sessions[CLI_SESSIONS["key"]]
    assert keyed.user_turns[0].text == (
        "my api key is [REDACTED:openai-key] please add it to the env example"
    )
    assert "AbCdEfGhIjKlMnOp" not in dumps(list(sessions.values()))
    blobs = sqlite3.connect(next((tmp_path / "idx").glob("*.sqlite3"))).execute(
        "SELECT state FROM files"
    )
    assert all(PLANTED_KEY.encode() not in bytes(row[0] or b"") for row in blobs)


def test_copilot_home_environment_variable(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(home))
    result = harvest(READING, sources=("copilot",), index=tmp_path / "idx")
    assert len(result.sessions) == 2


def test_scoping_is_root_or_below(home: Path, tmp_path: Path) -> None:
    assert _run(f"{WEBAPP}/tests", home, tmp_path).sessions == ()
    above = harvest(
        "/home/dev", sources=("copilot",), index=tmp_path / "i2", homes={"copilot": home}
    )
    assert len(above.sessions) == 6
    (events_file(home, "export").parent / "workspace.yaml").unlink()  # the log's cwd decides
    sessions = _by_id(_run(WEBAPP, home, tmp_path / "third"))
    assert CLI_SESSIONS["export"] in sessions and len(sessions) == 4


def _append(path: Path, *records: object) -> None:
    with open(path, "ab") as handle:
        for record in records:
            line = record if isinstance(record, bytes) else json.dumps(record).encode()
            handle.write(line + b"\n")


def _event(kind: str, data: dict[str, object], stamp: str, **extra: object) -> dict[str, object]:
    return {
        "type": kind,
        "data": data,
        "id": f"e-{stamp}",
        "timestamp": stamp,
        "parentId": None,
        **extra,
    }


def test_malformed_lines_are_counted_not_fatal(home: Path, tmp_path: Path) -> None:
    _append(
        events_file(home, "export"),
        b"{not json",
        b"\x00\xff\xfe garbage",
        b"[1, 2, 3]",
        _event("brand.new_event_type", {"x": 1}, "2026-11-21T11:58:07Z"),
        _event("user.message", "not a dict", "2026-11-21T11:58:08Z"),  # type: ignore[arg-type]
    )
    result = _run(WEBAPP, home, tmp_path)
    assert len(result.sessions) == 4
    skipped = result.stats["copilot"].skipped_lines
    assert skipped["malformed json"] == 2
    assert skipped["not a json object"] == 1
    assert skipped["unknown record type"] == 2


def test_failures_interrupts_and_injected_prompts(home: Path, tmp_path: Path) -> None:
    path = events_file(home, "export")
    t = "2026-11-21T12:00:0{}Z"
    _append(
        path,
        _event("user.message", {"content": "run the migrations"}, t.format(1)),
        _event(
            "assistant.message",
            {
                "messageId": "m9",
                "content": "Running them.",
                "toolRequests": [
                    {
                        "toolCallId": "call_9",
                        "name": "bash",
                        "arguments": {"command": "alembic upgrade head"},
                    }
                ],
            },
            t.format(2),
        ),
        _event(
            "tool.execution_complete",
            {
                "toolCallId": "call_9",
                "success": False,
                "error": {"message": "alembic: command not found"},
            },
            t.format(3),
        ),
        _event("abort", {"reason": "user_initiated"}, t.format(4)),
        _event(
            "user.message", {"content": "<skill>pdf</skill>", "source": "skill-pdf"}, t.format(5)
        ),
        _event("user.message", {"content": "sub-agent prompt"}, t.format(6), agentId="agent-1"),
    )
    result = _run(WEBAPP, home, tmp_path)
    session = _by_id(result)[CLI_SESSIONS["export"]]
    assert [t.text for t in session.user_turns] == [
        "add a --json flag to the export command",
        "run the migrations",
    ]
    (tool,) = session.turns[-1].tool_calls
    assert (tool.name, tool.input_excerpt, tool.is_error) == ("bash", "alembic upgrade head", True)
    assert tool.result_excerpt == "alembic: command not found"
    kinds = {(s.kind, s.turn_index) for s in session.signals}
    assert (SignalKind.TOOL_ERROR, 2) in kinds and (SignalKind.INTERRUPTED, 2) in kinds
    assert result.stats["copilot"].skipped_lines["sidechain record"] == 1


def test_second_night_reads_only_what_grew(home: Path, tmp_path: Path) -> None:
    assert len(_run(WEBAPP, home, tmp_path).sessions) == 4
    assert _run(WEBAPP, home, tmp_path).sessions == ()
    _append(
        events_file(home, "export"),
        _event("user.message", {"content": "thanks, that works"}, "2026-11-21T12:10:00Z"),
    )
    (grown,) = _run(WEBAPP, home, tmp_path).sessions
    assert grown.session_id == CLI_SESSIONS["export"]
    assert [t.text for t in grown.user_turns][-1] == "thanks, that works"
    assert [s.kind for s in grown.signals] == [SignalKind.APPROVAL]
