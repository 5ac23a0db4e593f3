"""A night's ``report.json`` read back as the :class:`~skillopt_sleep.engine.records.NightReport`
it was written from, so a night that staged nothing can be shown like a staged one.

A night's folder keeps its report.json whatever the night did (``nights/<id>/report.json``);
only a night that staged a proposal also has report.md and report.html, so ``report <night>``
renders the others from this. Keys a later version added are ignored; one an older version
lacked takes its field's default, and a required one missing is a :class:`ValueError`.

Every value is checked against its field's type before a renderer sees it (a ``Literal`` field
takes any text, so a later version's outcome still reads): the renderers write numbers such as
a step unescaped and format counts with ``{:,}``, so a damaged or hand-edited file with a
string where a count belongs is a :class:`ValueError` ("cannot be shown"), never markup in the
page or a crash halfway through rendering.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

from skillopt_sleep.engine.records import (
    EditView,
    FamilyView,
    HeldOut,
    NightReport,
    SkillChange,
    Usage,
)

__all__ = ["night_report"]


def _fits(hint: Any, value: Any) -> bool:
    """Whether the JSON value ``value`` is of the field type ``hint``."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return True
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str or origin is Literal:
        return isinstance(value, str)
    if origin is tuple:
        return isinstance(value, (list, tuple)) and all(_fits(args[0], v) for v in value)
    if origin is Mapping:
        return isinstance(value, Mapping) and all(
            _fits(args[0], k) and _fits(args[1], v) for k, v in value.items()
        )
    if origin in (Union, types.UnionType):
        return any(_fits(arg, value) for arg in args)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return isinstance(value, hint)
    return value is None if hint is type(None) else False


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _record(cls: type, raw: Any) -> Any:
    """``cls`` from the mapping ``raw``: its own fields only, lists as tuples, each checked."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"a {cls.__name__} is not a JSON object")
    hints = _hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name not in raw:
            continue
        value = raw[f.name]
        if not _fits(hints[f.name], value):
            raise ValueError(f"the {cls.__name__} field {f.name!r} has a value of the wrong type")
        values[f.name] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**values)
    except TypeError as exc:  # a required field missing
        raise ValueError(f"a {cls.__name__} lacks a field ({exc})") from None


def _records(cls: type, raw: Any) -> tuple[Any, ...]:
    if not isinstance(raw, list):
        raise ValueError(f"the {cls.__name__} records are not a JSON list")
    return tuple(_record(cls, item) for item in raw)


def night_report(data: Mapping[str, Any]) -> NightReport:
    """The NightReport in ``data`` (a report.json's object); ValueError when it is not one."""
    nested = {
        "families": _records(FamilyView, data.get("families", [])),
        "changes": _records(SkillChange, data.get("changes", [])),
        "edits": _records(EditView, data.get("edits", [])),
        "held_out": _record(HeldOut, data["held_out"]) if data.get("held_out") else None,
        "usage": _record(Usage, data.get("usage") or {}),
    }
    report: NightReport = _record(NightReport, {**data, **nested})
    return report
