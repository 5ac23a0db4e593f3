"""Harvest test fixtures: writable copies of the genuine transcripts and an isolated state dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest._fixtures import FIXTURES, copy_homes


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "state-home"))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    """Writable copies of the genuine Claude Code and Codex homes."""
    if not FIXTURES.is_dir():
        pytest.skip(f"genuine transcripts not found at {FIXTURES}")
    return copy_homes(tmp_path / "homes")
