"""Records -> JSON: dataclasses, enums, tuples, paths and datetimes (as ISO-8601 UTC)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import date, datetime, timezone
from enum import Enum
from pathlib import PurePath
from typing import Any


def iso_utc(moment: datetime) -> str:
    """ISO-8601 in UTC with a ``Z`` suffix; naive datetimes are taken to be UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible copy of ``value`` (dataclass fields in declaration order)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value.value if isinstance(value, Enum) else value
    if isinstance(value, Enum):
        return to_jsonable(value.value)
    if isinstance(value, datetime):
        return iso_utc(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {
            str(k.value if isinstance(k, Enum) else k): to_jsonable(v) for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_jsonable(v) for v in items]
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")


def dumps(value: Any, *, indent: int | None = None, ascii_only: bool = False) -> str:
    """``ascii_only``: every non-ASCII character as an escape (a bidi override in a request
    cannot then act on a terminal that prints the file)."""
    return json.dumps(to_jsonable(value), ensure_ascii=ascii_only, indent=indent)
