"""The schema of a `skillopt train` TOML config, and readable messages for what breaks it.

Every section is a strict pydantic model that forbids unknown keys: a typo in a key or a section
name is an error with a "did you mean" suggestion, and values are never coerced (``"false"`` is not
a boolean, ``2.5`` and ``true`` are not integers). Every number must be finite: TOML's ``nan`` and
``inf`` fail comparisons, and a ``nan`` gate threshold once accepted every candidate. A key left
out is None here (TOML has no null) and takes the default of the dataclass it fills
(:class:`~skillopt_core.config.TrainConfig`, ``LRSchedule``, ``GatePolicy``), so defaults live in
one place. A table under ``[backends.options]`` must name a role (optimizer, target).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from skillopt_core.backends.options import check_roles
from skillopt_core.errors import UsageError
from skillopt_core.suggest import did_you_mean


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class TrainSection(_Section):
    env: str | None = None
    epochs: int | None = None
    batch_size: int | None = None
    minibatch_size: int | None = None
    eval_samples: int | None = None
    workers: int | None = None
    seed: int | None = None
    seed_skill: str | None = None


class LRSection(_Section):
    schedule: Literal["constant", "linear", "cosine"] | None = None
    max: int | None = None
    min: int | None = None


class GateSection(_Section):
    metric: Literal["hard", "soft", "mixed"] | None = None
    mixed_weight: float | None = None
    no_regression: bool | None = None
    min_delta: float | None = None
    max_chars: int | None = None


class SlowUpdateSection(_Section):
    enabled: bool | None = None
    gated: bool | None = None
    meta: bool | None = None


class BackendsSection(_Section):
    optimizer: str | None = None
    target: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class ConfigFile(_Section):
    """A whole config file; every section optional."""

    train: TrainSection = Field(default_factory=TrainSection)
    lr: LRSection = Field(default_factory=LRSection)
    gate: GateSection = Field(default_factory=GateSection)
    slow_update: SlowUpdateSection = Field(default_factory=SlowUpdateSection)
    backends: BackendsSection = Field(default_factory=BackendsSection)


_SECTIONS: dict[str, type[_Section]] = {
    name: info.annotation  # type: ignore[misc]
    for name, info in ConfigFile.model_fields.items()
}

_KINDS = {
    "int_type": "an integer",
    "float_type": "a number",
    "finite_number": "a finite number",
    "bool_type": "a boolean (true or false, unquoted)",
    "string_type": "a string",
    "dict_type": "a table",
    "model_type": "a table",
}


def _where(loc: tuple[int | str, ...]) -> str:
    if len(loc) == 1:
        return f"[{loc[0]}]"
    return f"[{loc[0]}] {'.'.join(str(p) for p in loc[1:])}"


def _describe(error: ErrorDetails) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden" and len(loc) == 1:
        name = str(loc[0])
        home = next((s for s, model in _SECTIONS.items() if name in model.model_fields), None)
        if home is not None:  # a key written above every table, e.g. ``seed_skill = ...``
            return (
                f"unknown section [{name}]; {name!r} is a key of [{home}]: write it under [{home}]"
            )
        return f"unknown section [{name}]{did_you_mean(name, _SECTIONS, template='[{}]')}"
    if kind == "extra_forbidden" and len(loc) == 2 and str(loc[0]) in _SECTIONS:
        section, key = str(loc[0]), str(loc[1])
        known = _SECTIONS[section].model_fields
        return (
            f"unknown key {key!r} in [{section}]{did_you_mean(key, known)}; "
            f"known: {', '.join(known)}"
        )
    got = json.dumps(error.get("input"), default=str)[:60]
    if kind == "literal_error":
        expected = str(error.get("ctx", {}).get("expected", ""))
        hint = did_you_mean(str(error.get("input")), re.findall(r"'([^']*)'", expected))
        return f"{_where(loc)} must be one of {expected}, got {got}{hint}"
    kind_text = _KINDS.get(kind)
    if kind_text:
        return f"{_where(loc)} must be {kind_text}, got {got}"
    return f"{_where(loc)}: {error['msg']}"


def parse_config(data: Mapping[str, Any]) -> ConfigFile:
    """Validate a parsed TOML mapping; raise ``ValueError`` listing every problem found."""
    try:
        parsed = ConfigFile.model_validate(dict(data))
    except ValidationError as exc:
        problems = list(dict.fromkeys(_describe(e) for e in exc.errors()))
        raise ValueError("; ".join(problems)) from None
    try:
        check_roles(parsed.backends.options)
    except UsageError as exc:
        raise ValueError(exc.message) from None
    return parsed
