"""A narrow terminal (COLUMNS=40) gets every number of `skillopt-sleep harvest`'s summary: its
table's columns never shrink, so Rich cropped the last five ("tool errors" to "skipped files")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep.cli import app

ANSI = re.compile(r"\x1b\[")


@pytest.mark.parametrize("columns", ["40", "200"])
def test_harvest_summary_is_whole_at_any_width(columns: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["harvest", "-p", str(tmp_path), "-s", "claude"], env={"COLUMNS": columns}
    )
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())  # narrow lines wrap between words
    for label in ("sessions", "tool calls", "tool errors", "corrections", "skipped files"):
        assert label in flat or label.split()[-1] in flat
    assert "skipped" in flat and "files" in flat and "claude" in flat
    assert max(len(line) for line in result.output.splitlines()) <= int(columns)
    assert not ANSI.search(result.output)
    if columns == "40":
        assert "skipped files 0" in flat


PATH = "/home/someone/projects/a-rather-long-project-name/.claude/skills/deploy/SKILL.md"


@pytest.mark.parametrize("columns", ["40", "80"])
def test_proposals_keep_states_and_paths_whole(
    columns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table column folded each file path in two at 80 columns (a pipe, a log), and the state
    into ``pe`` / ``nd`` / ``in`` / ``g`` at 40."""
    from skillopt_sleep.engine.records import Proposal

    found = (Proposal("20261127-031700", "pending", "/s", "", (PATH,), 3, "better"),)
    monkeypatch.setattr("skillopt_sleep.engine.list_proposals", lambda root: found)
    result = CliRunner().invoke(app, ["proposals", "-p", str(tmp_path)], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert PATH in lines
    assert any(line.startswith("20261127-031700  pending  3 edits") for line in lines)
    assert not ANSI.search(result.output)


def test_config_show_keeps_keys_whole_when_narrow(tmp_path: Path) -> None:
    """At 40 columns the table folded keys mid-word (``backends.op`` / ``timizer``)."""
    result = CliRunner().invoke(app, ["config", "show", "-p", str(tmp_path)], env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.output
    assert 'backends.optimizer = "mock"  # default' in result.output.splitlines()
    assert 'night.sources = ["claude", "codex", "copilot"]  # default' in result.output
