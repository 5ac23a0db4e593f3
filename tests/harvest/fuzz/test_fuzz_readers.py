"""Structured fuzzing of every reader on mutated genuine records, through the real harvest.

One file of a home is rewritten with some of its records mutated (types swapped, keys dropped,
values replaced by huge, negative, deep or odd-unicode ones, records duplicated or swapped so a
tool result comes before its call). The harvest must not raise, must give the same sessions on
a second run, and every session held by the other files must come out exactly as without the
mutation. Hypothesis runs derandomized, with few examples, so the tests stay fast and fixed.
"""

from __future__ import annotations

import copy
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harvest._copilot import VSCODE_FIXTURES
from harvest._fixtures import FIXTURES
from skillopt_sleep.harvest import harvest
from skillopt_sleep.jsonable import dumps

_PROJECTS = ("/home/dev/webapp", "/home/dev/reading")
_HOMES = {"claude": ".claude", "codex": ".codex", "copilot": ".copilot", "vscode": "vscode/User"}
_ODD: list[Any] = [
    None, True, False, 0, -1, 2**63, -(2**63), 10**30, 1e308, -1e308, 0.5, "", "x", "\x00",
    "\u202e\ud7ff\uffff", "\U0001d518\U0001d52b", "[]", "HEAD", "9999-12-31T23:59:59Z", 1.7e12,
    "../../etc/passwd", "\\" * 40, "a" * 3000, [], {}, [None], {"type": None}, {"text": 1},
]  # fmt: skip
_SETTINGS = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"content": [value]}
    return value


_VALUES = st.one_of(
    st.sampled_from(_ODD).map(copy.deepcopy),  # a record's copy may be mutated in turn
    st.text(max_size=20),
    st.integers(),
    st.floats(allow_nan=False),
    st.sampled_from([30, 300]).map(_deep),
)


# Whole lines no JSON encoder writes: nesting deeper than any parser takes, a cut record, bytes
# that are not UTF-8, NaN, a lone surrogate escape, an integer past 64 bits.
_RAW_LINES = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"type": "user", "message": {"content": ' + b"[" * 1020 + b"1" + b"]" * 1020 + b"}}",
    b'{"type": "user", "message": {"role": "user", "content": "cut',
    b'{"type": "user", "message": {"role": "user", "content": "\xff\xfe bad"}}',
    b'{"type": "user", "timestamp": NaN, "message": {"content": "x"}}',
    b'{"type": "user", "message": {"content": "\\ud83d half"}}',
    b'{"type": "user", "timestamp": ' + b"9" * 400 + b', "message": {"content": "x"}}',
]


def _slots(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if len(path) < 12 and isinstance(node, dict):
        for key, value in node.items():
            found.extend(_slots(value, (*path, key)))
    elif len(path) < 12 and isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_slots(value, (*path, index)))
    return found


def _swapped(value: Any) -> Any:
    """The value as another JSON type: str <-> list <-> dict <-> int <-> null <-> bool."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {"0": value[0] if value else None}
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return None
    return True


def _mutated(data: st.DataObject, record: Any) -> Any:
    record = json.loads(json.dumps(record))
    for _ in range(data.draw(st.integers(1, 3))):
        slots = _slots(record)
        path = data.draw(st.sampled_from(slots))
        parent: Any = None
        node = record
        for step in path:
            parent, node = node, node[step]
        action = data.draw(st.sampled_from(["swap", "replace", "drop"]))
        if action == "drop" and parent is not None:
            del parent[path[-1]]
            continue
        new = _swapped(node) if action == "swap" else data.draw(_VALUES)
        if parent is None:
            record = new
        else:
            parent[path[-1]] = new
    return record


def _home(tmp_path: Path) -> Path:
    root = tmp_path / "homes"
    for name in (".claude", ".codex", ".copilot"):
        shutil.copytree(FIXTURES / name, root / name)
    shutil.copytree(VSCODE_FIXTURES, root / "vscode")
    for path in root.rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return root


def _sessions(root: Path, project: str) -> dict[tuple[str, str], str]:
    homes = {harness: root / folder for harness, folder in _HOMES.items()}
    result = harvest(project, index=":memory:", homes=homes)
    return {(s.harness, s.session_id): dumps(s) for s in result.sessions}


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def _baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = _home(tmp_path_factory.mktemp("fuzz-base"))
    return root, {p: _sessions(root, p) for p in _PROJECTS}


@pytest.mark.parametrize("harness", sorted(_HOMES))
def test_mutated_records_cost_only_their_own_file(
    harness: str, _baseline: tuple[Path, dict[str, Any]]
) -> None:
    root, baseline = _baseline
    files = sorted((root / _HOMES[harness]).rglob("*.jsonl"))

    @_SETTINGS
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(files))
        original = target.read_bytes()
        records = _lines(target)
        for _ in range(data.draw(st.integers(1, 6))):
            at = data.draw(st.integers(0, len(records) - 1))
            how = data.draw(st.sampled_from(["mutate", "mutate", "duplicate", "swap", "raw"]))
            other = data.draw(st.integers(0, len(records) - 1))
            if how == "mutate" and not isinstance(records[at], bytes):
                records[at] = _mutated(data, records[at])
            elif how == "duplicate":  # a repeated uuid / call id
                records.insert(other, records[at])
            elif how == "swap":  # out of order: a tool result before its call
                records[at], records[other] = records[other], records[at]
            else:
                records[at] = data.draw(st.sampled_from(_RAW_LINES))
        lines = [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]
        target.write_bytes(b"\n".join(lines) + b"\n")
        try:
            for project in _PROJECTS:
                got = _sessions(root, project)
                assert _sessions(root, project) == got  # deterministic
                for key, session in baseline[project].items():
                    if target.name in session or target.parent.name in session:
                        continue  # the mutated file's own session (or its folder's)
                    assert got.get(key) == session, (key, target)
        finally:
            target.write_bytes(original)

    run()
