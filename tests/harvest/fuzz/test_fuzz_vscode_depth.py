"""VS Code chat records nested past what the harvest can store (found by ``test_fuzz_readers``).

A kept field (``requestId``, a tool's details) is kept whole; nested 300 deep it made storing
the file's state fail (orjson stops at 254 levels), and nested ~1000 deep walking its strings
hit Python's recursion limit: either error escaped, and the whole harvest was lost. Containers
below ``KEEP_DEPTH`` levels of a kept field are now dropped, and so are writes at deeper paths.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harvest._copilot import vscode_home
from skillopt_sleep.harvest import harvest

_FILE = "5c8b1e0f2a4d4e6b9f3a7c1d2e8b4a60/chatSessions/0d4c7a52-3b1e-4f6a-9c8d-2e5f1a7b3c90.jsonl"


def _deep(depth: int) -> str:
    """JSON text ``depth`` times ``{"a": [...]}`` deep (2 levels each; json.dumps would recurse)."""
    return '{"a": [' * depth + '"leaf"' + "]}" * depth


def _sessions(home: Path) -> dict[str, str]:
    result = harvest("/home/dev/webapp", index=":memory:", homes={"vscode": home / "User"})
    return {s.session_id: s.turns[0].text for s in result.sessions}


@pytest.mark.parametrize("depth", [150, 490])
def test_a_deeply_nested_kept_field_costs_nothing(tmp_path: Path, depth: int) -> None:
    home = vscode_home(tmp_path)
    before = _sessions(home)
    path = home / "User" / "workspaceStorage" / _FILE
    deep_path = json.dumps(["requests", 0, "result", "timings", *("x" * 900)])
    with path.open("a", encoding="utf-8") as log:
        log.write(f'{{"kind": 1, "k": ["requests", 0, "requestId"], "v": {_deep(depth)}}}\n')
        log.write(f'{{"kind": 1, "k": {deep_path}, "v": 1}}\n')
    assert _sessions(home) == before  # raised TypeError / RecursionError
