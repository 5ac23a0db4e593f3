"""Shared constants and helpers for the harvest tests."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest._lines import DEFAULT_MAX_LINE, LineRead, iter_blocks

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


def write_claude_session(home: Path, turns: list[tuple[str, Any]], session_id: str = "s1") -> None:
    """A Claude Code session of ``WEBAPP`` under ``home``: one record per (role, content) turn,
    a minute apart, shaped like the genuine ones."""
    from skillopt_sleep.harvest.claude import slug

    folder = home / "projects" / slug(WEBAPP)
    folder.mkdir(parents=True, exist_ok=True)
    base = {"sessionId": session_id, "cwd": WEBAPP, "gitBranch": "main"}
    records = [
        {**base, "type": role, "uuid": f"{role[0]}{n}", "timestamp": f"2026-11-20T10:{n:02d}:00Z",
         "message": {"role": role, "content": content}}
        for n, (role, content) in enumerate(turns)
    ]  # fmt: skip
    (folder / f"{session_id}.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def iter_lines(
    path: str | Path, offset: int, result: LineRead, max_line: int = DEFAULT_MAX_LINE
) -> Iterator[bytes]:
    """The non-empty complete lines from ``offset``, as the harvest reads them (``iter_blocks``)."""
    for data, end in iter_blocks(path, offset, result, max_line):
        for line in data[:end].split(b"\n"):
            if line:
                yield line
