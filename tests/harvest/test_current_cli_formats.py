"""Genuine transcripts of the CLIs installed in November 2026, recorded offline against the
loopback fake (Claude Code 2.1.197, Codex 0.171.0, Copilot CLI 1.0.102).

They cover what the older fixtures do not: a project path with a space and a non-ASCII letter,
shell commands that exit non-zero, a tool error, an unknown tool, a correction in a later turn,
a session continued three times (``claude -p --continue``), a prompt over 8,000 characters, a
tool call interrupted with Escape in the interactive UI, and sub-agents (Claude ``Agent``, Codex
``spawn_agent``). The scratch HOME of each recording is rewritten to ``/home/dev``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.harvest import harvest
from skillopt_sleep.records import Session, SignalKind

DATA = Path(__file__).resolve().parents[1] / "data" / "transcripts_current"
PROJECT = "/home/dev/projects/my proj é"
WEBAPP = "/home/dev/projects/webapp"
CLAUDE_SID = "b81020b2-7425-4531-a972-2b5b7abad38a"
CODEX_SID = "01a21f13-721b-7241-925d-f3d30017b0bb"
CODEX_SUBAGENT = "01a21f13-7310-7070-aa2f-8cc98da28122"
LONG_PROMPT_END = "Why does the final batch in this long log never get processed?"


def _sessions(source: str, project: str = PROJECT, sidechains: bool = False) -> list[Session]:
    found = harvest(
        project,
        sources=(source,),
        since="3650d",
        index=":memory:",
        homes={source: DATA / source},
        include_sidechains=sidechains,
        commit=False,
    )
    return sorted(found.sessions, key=lambda s: s.session_id)


def _kinds(session: Session) -> list[tuple[str, int]]:
    return [(s.kind.value, s.turn_index) for s in session.signals]


@pytest.fixture(scope="module")
def claude() -> Session:
    (session,) = _sessions("claude")
    return session


def test_claude_continued_session_in_a_non_ascii_path_is_one_session(claude: Session) -> None:
    assert (claude.session_id, claude.cwd, claude.model) == (CLAUDE_SID, PROJECT, "fake-model")
    users = [t.text for t in claude.turns if t.role == "user"]
    assert users[0].startswith("Please check this project")
    assert users[1] == "no, that's wrong, use printf instead of echo for the greeting"
    assert users[2].startswith("Here is the build log:") and users[2].endswith(LONG_PROMPT_END)
    assert users[3] == "Delegate to a helper agent: count the files in the project"
    assert (SignalKind.CORRECTION.value, 0) in _kinds(claude)


def test_claude_bash_exit_codes_are_read_from_the_result(claude: Session) -> None:
    """Claude Code writes no exit code: ``Exit code N`` heads a failed Bash result, and a
    successful one is Bash's ``toolUseResult`` ``{stdout, stderr, interrupted: false}``."""
    calls = [(c.name, c.is_error, c.exit_code) for t in claude.turns for c in t.tool_calls]
    assert calls == [
        ("Bash", False, 0),
        ("Bash", True, 2),
        ("Read", False, None),
        ("Edit", False, None),
        ("Read", True, None),  # a missing file
        ("NoSuchTool", True, None),  # "No such tool available"
        ("Bash", True, 3),
        ("Agent", False, None),
    ]


def test_claude_head_outside_a_git_repository_is_no_branch(claude: Session) -> None:
    """Claude Code records ``gitBranch: "HEAD"`` where there is no repository (or no branch)."""
    assert claude.git_branch == ""


def test_claude_subagent_file_is_a_sidechain() -> None:
    (kept,) = _sessions("claude")
    assert "There is 1 file." not in [t.text for t in kept.turns]
    (merged,) = _sessions("claude", sidechains=True)
    assert any(t.text == "There is 1 file." for t in merged.turns)


def test_claude_escape_during_a_tool_call_is_an_interruption_then_a_correction() -> None:
    (session,) = _sessions("claude", WEBAPP)
    assert [t.text for t in session.turns if t.role == "user"] == [
        "Run the slow integration suite please",
        "no, that's wrong, try the quick suite instead",
    ]
    kinds = _kinds(session)
    assert (SignalKind.INTERRUPTED.value, 0) in kinds
    assert (SignalKind.CORRECTION.value, 0) in kinds


def test_codex_subagent_rollout_is_a_sidechain() -> None:
    """Codex 0.171 writes a spawned agent's thread to its own rollout; its prompt is the
    model's, so it is not a session of its own unless sidechains are asked for."""
    assert [s.session_id for s in _sessions("codex")] == [CODEX_SID]
    both = _sessions("codex", sidechains=True)
    assert [s.session_id for s in both] == [CODEX_SID, CODEX_SUBAGENT]
    assert both[1].turns[0].text == "Count the files in the project directory and report the number"


def test_codex_subagent_notification_is_not_a_user_request() -> None:
    session = next(s for s in _sessions("codex") if s.session_id == CODEX_SID)
    assert [(t.role, t.text) for t in session.turns] == [
        ("user", "Delegate to a helper agent: count the files in the project"),
        ("assistant", "The helper counted 1 file."),
    ]
    assert [c.name for c in session.turns[1].tool_calls] == ["spawn_agent", "wait_agent"]


def test_copilot_shell_results_lose_the_status_line_but_keep_the_exit_code() -> None:
    (session,) = _sessions("copilot")
    assert session.cwd == PROJECT
    calls = [(c.result_excerpt, c.is_error, c.exit_code) for c in session.turns[1].tool_calls]
    assert calls == [
        ("building", False, 0),
        ("make: *** No rule to make target 'build'.  Stop.", True, 2),
    ]
