"""Mutated genuine Copilot records never crash a source: they are used, ignored or counted."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harvest._copilot import VSCODE_FIXTURES, copilot_home, vscode_home
from harvest._fixtures import FIXTURES, WEBAPP
from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._build import assemble
from skillopt_sleep.harvest._events import FileState, seal
from skillopt_sleep.harvest._registry import Feed, HarvestConfig
from skillopt_sleep.harvest.copilot import CopilotCliSource
from skillopt_sleep.harvest.vscode import VsCodeChatSource

SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
CONFIG = HarvestConfig(Path(WEBAPP))


def _records(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for path in paths for line in path.read_text().splitlines() if line]


CLI_RECORDS = _records(sorted((FIXTURES / ".copilot").glob("session-state/*/events.jsonl")))
VSCODE_RECORDS = _records(
    sorted(VSCODE_FIXTURES.glob("User/workspaceStorage/*/chatSessions/*.jsonl"))
)
_ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _slots(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(_slots(value, (*path, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_slots(value, (*path, index)))
    return found


def _mutate(data: st.DataObject, record: dict[str, Any]) -> Any:
    record = copy.deepcopy(record)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_slots(record)))
        if not path:
            return data.draw(_ANY)
        parent = record
        for step in path[:-1]:
            parent = parent[step]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(_ANY)
    return record


def _fold(source: Any, records: list[Any]) -> FileState:
    state = FileState()
    for record in records:
        if not isinstance(record, dict):
            continue
        try:
            outcome = source.feed(state, record, CONFIG)
        except SHAPE_ERRORS:
            continue  # counted as "unexpected record shape" by the harvester
        assert isinstance(outcome, Feed)
    seal(state.events)
    json.dumps(state.to_json())  # what the index stores must stay serialisable
    assemble("copilot", "s", WEBAPP, [state], ["f"], 0.0)
    return state


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_cli_records(data: st.DataObject) -> None:
    chosen = data.draw(st.lists(st.sampled_from(CLI_RECORDS), min_size=1, max_size=12))
    _fold(CopilotCliSource(), [_mutate(data, r) if data.draw(st.booleans()) else r for r in chosen])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_vscode_operations(data: st.DataObject) -> None:
    chosen = [r for r in VSCODE_RECORDS[:20] if data.draw(st.booleans())]
    _fold(VsCodeChatSource(), [_mutate(data, r) if data.draw(st.booleans()) else r for r in chosen])


def test_source_copilot_selects_the_cli_and_vscode(tmp_path: Path) -> None:
    homes = {"copilot": copilot_home(tmp_path), "vscode": vscode_home(tmp_path)}
    result = harvest(WEBAPP, sources=("copilot",), index=tmp_path / "idx", homes=homes)
    files = {Path(s.source_files[0]).name for s in result.sessions}
    assert "events.jsonl" in files and any(
        name.endswith(".jsonl") and name != "events.jsonl" for name in files
    )
    assert len(result.sessions) == 6 and set(result.stats) == {"copilot"}
