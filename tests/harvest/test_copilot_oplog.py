"""VS Code's chat-session mutation log: each entry kind, and replay == direct mutation."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_sleep.harvest._oplog import apply_entry, replay


def _doc() -> dict[str, Any]:
    return {"sessionId": "s1", "requests": [{"requestId": "r1", "response": [{"value": "a"}]}]}


def test_initial_replaces_everything() -> None:
    assert apply_entry(_doc(), {"kind": 0, "v": {"fresh": True}}) == {"fresh": True}
    assert replay([{"kind": 0, "v": {"a": 1}}]) == {"a": 1}


def test_set_at_nested_path_and_array_index() -> None:
    doc = apply_entry(_doc(), {"kind": 1, "k": ["requests", 0, "modelState"], "v": {"value": 1}})
    assert doc["requests"][0]["modelState"] == {"value": 1}
    doc = apply_entry(doc, {"kind": 1, "k": ["requests", 0, "response", 0], "v": {"value": "b"}})
    assert doc["requests"][0]["response"] == [{"value": "b"}]
    doc = apply_entry(doc, {"kind": 1, "k": ["requests", 0, "response", 1], "v": {"value": "c"}})
    assert [p["value"] for p in doc["requests"][0]["response"]] == ["b", "c"]


def test_push_appends() -> None:
    doc = apply_entry(_doc(), {"kind": 2, "k": ["requests"], "v": [{"requestId": "r2"}]})
    assert [r["requestId"] for r in doc["requests"]] == ["r1", "r2"]


def test_push_with_index_truncates_then_replaces() -> None:
    doc = _doc()
    doc["requests"][0]["response"] = [{"value": "a"}, {"value": "b"}, {"value": "c"}]
    entry = {"kind": 2, "k": ["requests", 0, "response"], "i": 1, "v": [{"value": "B"}]}
    doc = apply_entry(doc, entry)
    assert doc["requests"][0]["response"] == [{"value": "a"}, {"value": "B"}]


def test_push_with_index_and_no_values_only_truncates() -> None:
    doc = apply_entry(_doc(), {"kind": 2, "k": ["requests", 0, "response"], "i": 0})
    assert doc["requests"][0]["response"] == []


def test_push_creates_a_missing_array() -> None:
    doc = apply_entry(_doc(), {"kind": 2, "k": ["requests", 0, "followups"], "v": [1, 2]})
    assert doc["requests"][0]["followups"] == [1, 2]


def test_delete_removes_a_property() -> None:
    doc = apply_entry(_doc(), {"kind": 3, "k": ["sessionId"]})
    assert "sessionId" not in doc
    doc = apply_entry(doc, {"kind": 3, "k": ["requests", 0, "missing"]})  # absent: no-op
    assert doc["requests"][0]["requestId"] == "r1"
    doc = apply_entry(doc, {"kind": 3, "k": ["requests", 0, "response", 0]})
    assert doc["requests"][0]["response"] == [None]


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"kind": 1, "k": ["nope", "deeper"], "v": 1}, KeyError),
        ({"kind": 1, "k": ["requests", 5, "x"], "v": 1}, IndexError),
        ({"kind": 1, "k": ["sessionId", "x"], "v": 1}, TypeError),
        ({"kind": 1, "k": [], "v": 1}, ValueError),
        ({"kind": 9, "k": ["a"]}, ValueError),
    ],
)
def test_malformed_entries_raise_shape_errors(entry: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        apply_entry(_doc(), entry)


# --- property: a log recorded from random mutations replays to the mutated object ------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _containers(node: Any, path: list[Any]) -> list[tuple[list[Any], Any]]:
    found: list[tuple[list[Any], Any]] = []
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            found.extend(_containers(value, [*path, key]))
    elif isinstance(node, list):
        found.append((path, node))
        for index, value in enumerate(node):
            found.extend(_containers(value, [*path, index]))
    return found


def _mutate(data: st.DataObject, doc: dict[str, Any]) -> dict[str, Any] | None:
    """Mutate ``doc`` directly (plain Python) and return the log entry describing it."""
    path, target = data.draw(st.sampled_from(_containers(doc, [])))
    if isinstance(target, dict):
        ops = ["set", "delete", "push"] if target else ["set", "push"]
        op = data.draw(st.sampled_from(ops))
        if op == "delete":
            key = data.draw(st.sampled_from(sorted(target)))
            del target[key]
            return {"kind": 3, "k": [*path, key]}
        key = data.draw(st.text(max_size=3))
        if op == "push":
            items = data.draw(st.lists(_JSON, max_size=3))
            current = target.get(key)
            target[key] = [*current, *items] if isinstance(current, list) else list(items)
            return {"kind": 2, "k": [*path, key], "v": items}
        value = data.draw(_JSON)
        target[key] = copy.deepcopy(value)
        return {"kind": 1, "k": [*path, key], "v": value}
    if not path:
        return None
    op = data.draw(st.sampled_from(["append", "splice", "set"] if target else ["append", "splice"]))
    if op == "set":
        index = data.draw(st.integers(0, len(target) - 1))
        value = data.draw(_JSON)
        target[index] = copy.deepcopy(value)
        return {"kind": 1, "k": [*path, index], "v": value}
    items = data.draw(st.lists(_JSON, max_size=3))
    if op == "append":
        target.extend(copy.deepcopy(items))
        return {"kind": 2, "k": path, "v": items}
    cut = data.draw(st.integers(0, len(target)))
    del target[cut:]
    target.extend(copy.deepcopy(items))
    return {"kind": 2, "k": path, "v": items, "i": cut}


@settings(max_examples=300, deadline=None)
@given(st.data(), st.dictionaries(st.text(max_size=3), _JSON, max_size=4))
def test_replaying_a_recorded_log_equals_direct_mutation(
    data: st.DataObject, initial: dict[str, Any]
) -> None:
    doc = copy.deepcopy(initial)
    lines = [json.dumps({"kind": 0, "v": initial})]
    for _ in range(data.draw(st.integers(0, 12))):
        entry = _mutate(data, doc)
        if entry is not None:
            lines.append(json.dumps(entry))
    assert replay(json.loads(line) for line in lines) == doc
