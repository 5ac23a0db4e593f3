"""VS Code Copilot Chat: mutation-log sessions mapped to projects through workspace.json."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harvest._copilot import vscode_home
from harvest._fixtures import PLANTED_KEY, READING, WEBAPP
from skillopt_sleep.harvest import HarvestResult, harvest
from skillopt_sleep.harvest.vscode import folder_of, user_dirs, workspace_folder
from skillopt_sleep.jsonable import dumps
from skillopt_sleep.records import Session, SignalKind

FIX_ID = "0d4c7a52-3b1e-4f6a-9c8d-2e5f1a7b3c90"
EXPORT_ID = "6e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
READING_ID = "3a5c7e9b-1d2f-4a6c-8e0b-2d4f6a8c0e1b"
WEBAPP_STORAGE = "User/workspaceStorage/5c8b1e0f2a4d4e6b9f3a7c1d2e8b4a60"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return vscode_home(tmp_path)


def _run(project: str, home: Path, tmp_path: Path, name: str = "idx") -> HarvestResult:
    return harvest(project, sources=("vscode",), index=tmp_path / name, homes={"vscode": home})


def _by_id(result: HarvestResult) -> dict[str, Session]:
    return {s.session_id: s for s in result.sessions}


def test_webapp_sessions(home: Path, tmp_path: Path) -> None:
    sessions = _by_id(_run(WEBAPP, home, tmp_path))
    assert set(sessions) == {FIX_ID, EXPORT_ID}
    fix = sessions[FIX_ID]
    assert fix.harness == "copilot" and (fix.project, fix.cwd) == (WEBAPP, WEBAPP)
    assert fix.model == "copilot/gpt-4.1"
    assert [t.text for t in fix.user_turns] == [
        "fix the failing login test in tests/test_auth.py",
        "no, that's wrong, the test still fails - check the session cookie name",
        "use my key [REDACTED:openai-key] for the staging env",
    ]  # the system-initiated and the @python requests are dropped
    assert [t.role for t in fix.turns] == ["user", "assistant"] * 3
    assert fix.started_at.isoformat() == "2026-11-21T12:00:01+00:00"
    assert fix.ended_at.isoformat() == "2026-11-21T12:02:03+00:00"
    reply = fix.turns[1]
    assert reply.text.startswith("Let me run the tests first.")
    assert "I renamed it in `auth.py`." in reply.text
    (tool,) = reply.tool_calls
    assert (tool.call_id, tool.name, tool.input_excerpt) == (
        "call_aa01",
        "run_in_terminal",
        "pytest tests/test_auth.py -q",
    )
    assert "1 failed" in tool.result_excerpt and (tool.is_error, tool.exit_code) == (True, 1)
    (read,) = fix.turns[3].tool_calls
    assert read.name == "copilot_readFile" and not read.is_error
    # the streamed chunk was truncated and replaced, so it appears once, complete
    assert fix.turns[3].text.count("Checking the cookie") == 1
    kinds = [(s.kind, s.turn_index) for s in fix.signals]
    assert (SignalKind.TOOL_ERROR, 0) in kinds and (SignalKind.CORRECTION, 0) in kinds


def test_cancelled_request_is_an_interruption(home: Path, tmp_path: Path) -> None:
    export = _by_id(_run(WEBAPP, home, tmp_path))[EXPORT_ID]
    assert [(s.kind, s.turn_index) for s in export.signals] == [(SignalKind.INTERRUPTED, 0)]


def test_reading_project_from_a_workspace_file(home: Path, tmp_path: Path) -> None:
    (session,) = _run(READING, home, tmp_path).sessions
    assert session.session_id == READING_ID and session.cwd == READING
    assert session.user_turns[1].text.startswith("wrong format")
    assert [s.kind for s in session.signals] == [SignalKind.CORRECTION]


def test_private_fields_and_secrets_never_stored(home: Path, tmp_path: Path) -> None:
    result = _run(WEBAPP, home, tmp_path)
    text = dumps(list(result.sessions))
    index_db = next((tmp_path / "idx").glob("*.sqlite3"))
    stored = b"".join(
        bytes(row[0] or b"") for row in sqlite3.connect(index_db).execute("SELECT state FROM files")
    )
    for leak in ("PRIVATE-", "AbCdEfGhIjKlMnOp", PLANTED_KEY, "variableData"):
        assert leak not in text
        assert leak.encode() not in stored


def test_other_projects_and_empty_windows_are_not_read(home: Path, tmp_path: Path) -> None:
    result = _run(WEBAPP, home, tmp_path)
    assert result.stats["copilot"].files_seen == 2
    old = _run("/home/dev/web app old", home, tmp_path, "old")
    assert [s.user_turns[0].text for s in old.sessions] == [
        "fix the failing login test in tests/test_auth.py"
    ]  # the percent-encoded folder URI is decoded


def test_malformed_lines_are_counted_not_fatal(home: Path, tmp_path: Path) -> None:
    log = home / WEBAPP_STORAGE / "chatSessions" / f"{EXPORT_ID}.jsonl"
    with open(log, "ab") as handle:
        handle.write(b"{broken\n")
        handle.write(
            json.dumps({"kind": 1, "k": ["requests", 7, "isCanceled"], "v": True}).encode() + b"\n"
        )
        handle.write(json.dumps({"kind": 7, "k": ["x"]}).encode() + b"\n")
        handle.write(json.dumps({"kind": 1, "k": ["customTitle"], "v": "ignored"}).encode() + b"\n")
    result = _run(WEBAPP, home, tmp_path)
    assert set(_by_id(result)) == {FIX_ID, EXPORT_ID}
    skipped = result.stats["copilot"].skipped_lines
    assert skipped["malformed json"] == 1
    assert skipped["unexpected record shape"] == 1
    assert skipped["unknown record type"] == 1


def test_appended_operations_are_picked_up_next_night(home: Path, tmp_path: Path) -> None:
    assert len(_run(WEBAPP, home, tmp_path).sessions) == 2
    assert _run(WEBAPP, home, tmp_path).sessions == ()
    log = home / WEBAPP_STORAGE / "chatSessions" / f"{EXPORT_ID}.jsonl"
    request = {
        "requestId": "request_more",
        "timestamp": 1795266000000 + 60_000,
        "agent": {"extensionId": {"value": "GitHub.copilot-chat", "_lower": "github.copilot-chat"}},
        "message": {"text": "add a --json flag to the export command", "parts": []},
        "response": [],
    }
    with open(log, "ab") as handle:
        handle.write(json.dumps({"kind": 2, "k": ["requests"], "v": [request]}).encode() + b"\n")
        entry = {"kind": 2, "k": ["requests", 1, "response"], "v": [{"value": "Done."}]}
        handle.write(json.dumps(entry).encode() + b"\n")
    (grown,) = _run(WEBAPP, home, tmp_path).sessions
    assert grown.session_id == EXPORT_ID
    assert [t.text for t in grown.turns] == [
        "add a --json flag to the export command",
        "I'll add the flag to `cli/export.py`",
        "add a --json flag to the export command",
        "Done.",
    ]
    assert {s.kind for s in grown.signals} == {SignalKind.INTERRUPTED, SignalKind.RETRY}


@pytest.mark.parametrize(
    ("system", "env", "expected"),
    [
        ("Linux", {}, ["/home/u/.config/Code/User", "/home/u/.config/Code - Insiders/User"]),
        ("Linux", {"XDG_CONFIG_HOME": "/x"}, ["/x/Code/User", "/x/Code - Insiders/User"]),
        (
            "Darwin",
            {},
            [
                "/home/u/Library/Application Support/Code/User",
                "/home/u/Library/Application Support/Code - Insiders/User",
            ],
        ),
        (
            "Windows",
            {"APPDATA": "C:/Users/u/AppData/Roaming"},
            [
                "C:/Users/u/AppData/Roaming/Code/User",
                "C:/Users/u/AppData/Roaming/Code - Insiders/User",
            ],
        ),
        ("Linux", {"VSCODE_PORTABLE": "/opt/vscode/data"}, ["/opt/vscode/data/user-data/User"]),
    ],
)
def test_user_dirs_per_platform(system: str, env: dict[str, str], expected: list[str]) -> None:
    found = [d.as_posix() for d in user_dirs(env, Path("/home/u"), system)]
    assert found[: len(expected)] == expected
    assert "/home/u/.vscode-server/data/User" in found


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/dev/webapp", "/home/dev/webapp"),
        ("file:///home/dev/my%20notes/", "/home/dev/my notes"),
        ("file:///c%3A/Users/dev/proj", "c:/Users/dev/proj"),
        ("vscode-remote://ssh-remote%2Bbox/home/dev/webapp", ""),
        ("untitled:Untitled-1", ""),
    ],
)
def test_folder_uris(uri: str, path: str) -> None:
    assert folder_of(uri) == path


def test_workspace_json_shapes(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "workspace.json").write_text('{"workspace": "file:///srv/proj/proj.code-workspace"}')
    workspace = tmp_path / "b"
    workspace.mkdir()
    (workspace / "workspace.json").write_text("not json")
    assert workspace_folder(folder) == "/srv/proj"
    assert workspace_folder(workspace) == ""
    assert workspace_folder(tmp_path / "missing") == ""


@pytest.mark.parametrize("elapsed", [1e20, -1e15, float("nan"), float("inf")])
def test_a_bogus_duration_leaves_the_reply_at_the_request_time(elapsed: float) -> None:
    """A reply's time was the request's plus ``result.timings.totalElapsed`` whatever it said: one
    far out of range made the session's assembly raise (OverflowError, OSError or "year 0 is out
    of range", by platform) on every harvest. Found by the fuzz test under Python 3.10."""
    from skillopt_sleep.harvest._build import assemble
    from skillopt_sleep.harvest._events import FileState
    from skillopt_sleep.harvest._vscode_chat import request_events

    request = {
        "timestamp": 1_763_640_000_000,  # 2025-11-20, in ms
        "message": {"text": "fix the login test"},
        "response": [{"kind": "markdownContent", "value": "done"}],
        "result": {"timings": {"totalElapsed": elapsed}},
    }
    events = request_events(request, 0)
    assert [e[1] for e in events] == [1_763_640_000.0, 1_763_640_000.0]  # (kind, ts, ...)
    state = FileState()
    state.events.extend(events)
    built = assemble("copilot", "s", "/home/dev/webapp", [state], ["f"], 0.0)
    assert built.session is not None and built.session.turns
