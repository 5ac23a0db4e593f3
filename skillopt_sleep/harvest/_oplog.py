"""Replay of VS Code's append-only object mutation log (``chatSessions/*.jsonl``).

Each line is one entry; together they rebuild a JSON object, with the semantics of VS Code's
``ObjectMutationLog``:

======= ====================================================================================
kind    meaning
======= ====================================================================================
0       initial: the whole object is ``v`` (normally the first line; a later one restarts)
1       set: the value at path ``k`` becomes ``v``
2       push: the array at ``k`` (created when absent) is cut to length ``i`` when ``i`` is
        given, then the items of ``v`` (if any) are appended
3       delete: the property at ``k`` is removed (an array slot becomes ``None``)
======= ====================================================================================

Pure functions; a path through a missing container raises ``KeyError`` / ``IndexError`` /
``TypeError`` (the harvester counts such lines as malformed and goes on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3

Path = Sequence[str | int]


def _container(doc: Any, path: Path) -> Any:
    current = doc
    for step in path[:-1]:
        current = current[step]
    return current


def _put(parent: Any, key: str | int, value: Any) -> None:
    if isinstance(parent, list):
        if not isinstance(key, int) or key < 0:
            raise TypeError(f"array index must be a non-negative int, not {key!r}")
        if key >= len(parent):
            parent.extend([None] * (key - len(parent) + 1))
    elif not isinstance(parent, dict):
        raise TypeError(f"cannot set {key!r} on {type(parent).__name__}")
    parent[key] = value


def _path(entry: Mapping[str, Any]) -> list[str | int]:
    path = entry.get("k")
    if not isinstance(path, list) or not path:
        raise ValueError("an entry needs a non-empty path 'k'")
    return path


def apply_entry(doc: Any, entry: Mapping[str, Any]) -> Any:
    """The object after one log entry (mutated in place where possible, and returned)."""
    kind = entry.get("kind")
    if kind == INITIAL:
        return entry.get("v")
    path = _path(entry)
    parent = _container(doc, path)
    key = path[-1]
    if kind == SET:
        _put(parent, key, entry.get("v"))
    elif kind == DELETE:
        if isinstance(parent, dict):
            parent.pop(key, None)
        elif isinstance(parent, list) and isinstance(key, int) and 0 <= key < len(parent):
            parent[key] = None
    elif kind == PUSH:
        array = parent.get(key) if isinstance(parent, dict) else parent[key]
        array = array if isinstance(array, list) else []
        cut = entry.get("i")
        if isinstance(cut, int) and cut >= 0:
            del array[cut:]
            array.extend([None] * (cut - len(array)))
        items = entry.get("v")
        if isinstance(items, list):
            array.extend(items)
        _put(parent, key, array)
    else:
        raise ValueError(f"unknown entry kind {kind!r}")
    return doc


def replay(entries: Iterable[Mapping[str, Any]]) -> Any:
    """The object a whole log describes."""
    doc: Any = None
    for entry in entries:
        doc = apply_entry(doc, entry)
    return doc
