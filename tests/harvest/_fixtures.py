"""Shared constants and helpers for the harvest tests."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

# genuine transcripts written by the real harness CLIs (copied from the team's shared fixtures)
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "transcripts"

WEBAPP = "/home/dev/webapp"
READING = "/home/dev/reading"
PLANTED_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"


def copy_homes(target_root: Path) -> dict[str, Path]:
    """Writable copies of the genuine Claude Code and Codex homes under ``target_root``."""
    copied = {}
    for harness, folder in (("claude", ".claude"), ("codex", ".codex")):
        target = target_root / folder
        shutil.copytree(FIXTURES / folder, target)
        for path in target.rglob("*"):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
        copied[harness] = target
    return copied


def claude_file(homes: dict[str, Path], session_id: str) -> Path:
    return next(homes["claude"].glob(f"projects/*/{session_id}.jsonl"))


def codex_file(homes: dict[str, Path], session_id: str) -> Path:
    return next(homes["codex"].glob(f"sessions/*/*/*/rollout-*-{session_id}.jsonl"))
