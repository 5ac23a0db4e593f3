"""Helpers for the Copilot harvest tests: writable copies of the genuine and hand-written homes."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from harvest._fixtures import FIXTURES

VSCODE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vscode"
CLI_SESSIONS = {
    "fix": "1664045a-9ac7-4844-a78c-1ccebb6bbdd3",
    "export": "41a275b7-fc58-422f-bb1b-c991f6578d54",
    "again": "87895d58-4a84-470f-b10f-8b6c2077ee4a",
    "key": "7191b837-f6fe-41a3-8f7b-14b847b4c7a7",
    "summarize": "728d4098-f393-4ba4-b325-2acee2a55254",
    "format": "54a488e5-87ca-4f07-9919-4e7a21ebb31c",
}


def _writable_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for path in target.rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return target


def copilot_home(tmp_path: Path) -> Path:
    """A writable copy of the genuine Copilot CLI 1.0.102 home."""
    return _writable_copy(FIXTURES / ".copilot", tmp_path / "homes" / ".copilot")


def vscode_home(tmp_path: Path) -> Path:
    """A writable copy of the hand-written VS Code user-data dir."""
    return _writable_copy(VSCODE_FIXTURES, tmp_path / "homes" / "vscode")


def events_file(home: Path, name: str) -> Path:
    return home / "session-state" / CLI_SESSIONS[name] / "events.jsonl"
