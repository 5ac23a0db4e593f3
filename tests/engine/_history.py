"""A long Claude Code history for first-night tests, one session per file in the on-disk shape.

Every request is one task ("summarise arXiv paper N for the reading group"), worded with a new
paper id each time: once ids are masked they are one family with as many distinct requests as
sessions, which is what a year of history makes of a recurring task. A third of the sessions
correct the answer, so the family is judged by rule checks.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def _record(
    kind: str, sid: str, project: Path, when: datetime, parent: str | None, message: dict
) -> dict:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "message": message,
        "uuid": str(uuid.uuid4()),
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "userType": "external",
        "entrypoint": "cli",
        "cwd": str(project),
        "sessionId": sid,
        "version": "2.1.197",
        "gitBranch": "main",
    }


def write_history(claude_home: Path, project: Path, sessions: int) -> list[Path]:
    """``sessions`` session files of ``project`` under ``claude_home``, a day apart."""
    folder = claude_home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for n in range(sessions):
        sid = str(uuid.UUID(int=n + 1))
        when = START + timedelta(days=n)
        ask = f"summarize arXiv paper 2401.{10000 + n} for the reading group"
        user = _record("user", sid, project, when, None, {"role": "user", "content": ask})
        reply = {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"Summary of 2401.{10000 + n}: ..."}],
            "stop_reason": "end_turn",
        }
        records = [user, _record("assistant", sid, project, when, user["uuid"], reply)]
        if n % 3 == 0:
            fix = {"role": "user", "content": "no, that's wrong - include the 'Method' section"}
            later = when + timedelta(minutes=1)
            records.append(_record("user", sid, project, later, records[-1]["uuid"], fix))
        files.append(folder / f"{sid}.jsonl")
        files[-1].write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return files
