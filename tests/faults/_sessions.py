"""Small hand-made Claude Code sessions for the fault tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.harvest.claude import slug

PROJECT = "/home/dev/webapp"


def records(sid: str, requests: Sequence[str], start: int = 0) -> list[dict[str, Any]]:
    """A user request and an assistant reply per request, one second apart."""
    out: list[dict[str, Any]] = []
    for number, text in enumerate(requests):
        second = start + 2 * number
        base = {"sessionId": sid, "cwd": PROJECT, "gitBranch": "main"}
        out.append(
            {
                **base,
                "type": "user",
                "uuid": f"{sid}-u{second}",
                "timestamp": f"2026-11-20T10:{second // 60:02d}:{second % 60:02d}Z",
                "message": {"role": "user", "content": text},
            }
        )
        out.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"{sid}-a{second}",
                "timestamp": f"2026-11-20T10:{(second + 1) // 60:02d}:{(second + 1) % 60:02d}Z",
                "message": {"role": "assistant", "content": f"done: {text}"},
            }
        )
    return out


def session_file(home: Path, sid: str, project: str = PROJECT) -> Path:
    return home / "projects" / slug(project) / f"{sid}.jsonl"


def write_session(home: Path, sid: str, requests: Sequence[str], project: str = PROJECT) -> Path:
    path = session_file(home, sid, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in records(sid, requests)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_many(home: Path, count: int, requests: Sequence[str] = ("fix the login test",)) -> None:
    for number in range(count):
        write_session(home, f"{number:08d}-0000-4000-8000-000000000000", requests)
