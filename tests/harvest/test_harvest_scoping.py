"""A session belongs to a project when it ran in the project root or below it, never above."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._build import in_project


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [
        ("/home/dev/webapp", True),
        ("/home/dev/webapp/src/api", True),
        ("/home/dev", False),
        ("/home/dev/webapp-old", False),
        ("/home/dev/web", False),
        ("", False),
    ],
)
def test_in_project(cwd: str, expected: bool) -> None:
    assert in_project(cwd, "/home/dev/webapp") is expected


def _claude(home: Path, cwd: str, session: str) -> None:
    slug = "".join(c if c.isalnum() else "-" for c in cwd)
    folder = home / "projects" / slug
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "type": "user",
        "uuid": f"u-{session}",
        "sessionId": session,
        "cwd": cwd,
        "timestamp": "2026-11-20T10:00:00Z",
        "message": {"role": "user", "content": f"request from {cwd}"},
    }
    (folder / f"{session}.jsonl").write_text(json.dumps(record) + "\n")


def test_sessions_below_are_kept_above_and_siblings_are_not(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _claude(home, "/home/dev/webapp", "root")
    _claude(home, "/home/dev/webapp/src", "below")
    _claude(home, "/home/dev/webapp-old", "sibling")  # same slug prefix, other project
    _claude(home, "/home/dev", "above")
    result = harvest(
        "/home/dev/webapp", sources=("claude",), index=":memory:", homes={"claude": home}
    )
    assert {s.session_id for s in result.sessions} == {"root", "below"}
    assert result.stats["claude"].skipped_sessions["other project"] == 1
