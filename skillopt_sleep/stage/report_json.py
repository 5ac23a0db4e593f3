"""A night's ``report.json`` read back as the :class:`~skillopt_sleep.engine.records.NightReport`
it was written from, so a night that staged nothing can be shown like a staged one.

A night's folder keeps its report.json whatever the night did (``nights/<id>/report.json``);
only a night that staged a proposal also has report.md and report.html, so ``report <night>``
renders the others from this. Keys a later version added are ignored; one an older version
lacked takes its field's default, and a required one missing is a :class:`ValueError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from skillopt_sleep.engine.records import (
    EditView,
    FamilyView,
    HeldOut,
    NightReport,
    SkillChange,
    Usage,
)

__all__ = ["night_report"]


def _record(cls: type, raw: Any) -> Any:
    """``cls`` from the mapping ``raw``: its own fields only, lists as tuples."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"a {cls.__name__} is not a JSON object")
    names = {f.name for f in dataclasses.fields(cls)}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k in names}
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
