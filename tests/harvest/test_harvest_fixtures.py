"""The genuine Claude Code 2.1 and Codex 0.169 transcripts harvest correctly for both projects."""

from __future__ import annotations

from pathlib import Path

from harvest._fixtures import PLANTED_KEY, READING, WEBAPP
from skillopt_sleep.harvest import harvest
from skillopt_sleep.jsonable import dumps
from skillopt_sleep.records import Session, SignalKind


def _run(project: str, homes: dict[str, Path], tmp_path: Path) -> dict[tuple[str, str], Session]:
    result = harvest(project, sources=("claude", "codex"), index=tmp_path / "idx", homes=homes)
    return {(s.harness, s.user_turns[0].text): s for s in result.sessions}


def test_webapp_sessions_for_both_harnesses(homes: dict[str, Path], tmp_path: Path) -> None:
    sessions = _run(WEBAPP, homes, tmp_path)
    assert len(sessions) == 8
    for harness in ("claude", "codex"):
        first = sessions[(harness, "fix the failing login test in tests/test_auth.py")]
        assert [t.role for t in first.turns] == ["user", "assistant", "user", "assistant"]
        assert first.turns[2].text.startswith("no, that's wrong, the test still fails")
        assert [(s.kind, s.turn_index) for s in first.signals] == [(SignalKind.CORRECTION, 0)]
        assert first.project == WEBAPP and first.cwd == WEBAPP
        assert (
            first.started_at.tzinfo is not None
            and first.started_at.utcoffset().total_seconds() == 0
        )
        assert first.started_at <= first.ended_at
        (tool,) = first.turns[1].tool_calls
        assert tool.input_excerpt == "ls -la"
        assert "README.md" in tool.result_excerpt and not tool.is_error

        again = sessions[
            (harness, "the login test in tests/test_auth.py is failing again, please fix it")
        ]
        assert [(s.kind, s.turn_index) for s in again.signals] == [(SignalKind.APPROVAL, 0)]
        assert (harness, "add a --json flag to the export command") in sessions


def test_harness_specific_metadata(homes: dict[str, Path], tmp_path: Path) -> None:
    sessions = _run(WEBAPP, homes, tmp_path)
    claude = sessions[("claude", "fix the failing login test in tests/test_auth.py")]
    assert claude.session_id == "0eb5a987-d3fd-4cfb-a878-1c75c9ebca4a"
    assert (claude.model, claude.git_branch) == ("claude-opus-4-8", "master")
    assert claude.turns[1].tool_calls[0].call_id == "toolu_01"
    assert claude.turns[1].tool_calls[0].name == "Bash"
    codex = sessions[("codex", "fix the failing login test in tests/test_auth.py")]
    assert codex.session_id == "01a1fdf8-5ac2-7210-abf4-40331b84a128"
    assert codex.model == "fake-model"
    assert codex.turns[1].tool_calls[0].exit_code == 0
    assert all("<environment_context>" not in t.text for t in codex.turns)
    assert len(codex.source_files) == 1 and codex.source_files[0].endswith(".jsonl")


def test_planted_key_is_redacted_everywhere(homes: dict[str, Path], tmp_path: Path) -> None:
    sessions = _run(WEBAPP, homes, tmp_path)
    keyed = [s for (_, text), s in sessions.items() if text.startswith("my api key is")]
    assert {s.harness for s in keyed} == {"claude", "codex"}
    for session in keyed:
        assert "[REDACTED:" in session.user_turns[0].text
        assert "please add it to the env example" in session.user_turns[0].text
    assert PLANTED_KEY not in dumps(list(sessions.values()))
    assert "AbCdEfGhIjKlMnOp" not in dumps(list(sessions.values()))


def test_reading_project(homes: dict[str, Path], tmp_path: Path) -> None:
    sessions = _run(READING, homes, tmp_path)
    assert len(sessions) == 4
    assert all(s.project == READING for s in sessions.values())
    for harness in ("claude", "codex"):
        fmt = sessions[(harness, "give me a summary of arXiv 2510.04618 with the id at the end")]
        assert fmt.user_turns[1].text.startswith("wrong format")
        assert [s.kind for s in fmt.signals] == [SignalKind.CORRECTION]
        assert (
            harness,
            "summarize arXiv paper 2605.23904 for the reading group and give its arXiv id",
        ) in sessions


def test_stats_per_harness(homes: dict[str, Path], tmp_path: Path) -> None:
    result = harvest(WEBAPP, sources=("claude", "codex"), index=tmp_path / "idx", homes=homes)
    for harness in ("claude", "codex"):
        stats = result.stats[harness]
        assert (
            stats.sessions,
            stats.turns,
            stats.tool_calls,
            stats.tool_errors,
            stats.corrections,
        ) == (4, 12, 4, 0, 1)
        assert stats.skipped_line_count == 0
    assert result.stats["claude"].files_read == 4  # the reading project's folder is never opened
    assert result.stats["codex"].skipped_sessions["other project"] == 2
