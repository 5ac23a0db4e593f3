"""Training configuration: paper defaults, overridable from a TOML file and then from flags.

TOML layout (every key optional)::

    [train]
    epochs = 4
    batch_size = 40
    minibatch_size = 8
    eval_samples = 1
    workers = 8
    seed = 0
    env = "qa"
    seed_skill = "path/to/seed.md"

    [lr]            # textual learning rate: edits per step
    schedule = "cosine"   # constant | linear | cosine
    max = 4
    min = 2

    [gate]
    metric = "hard"       # hard | soft | mixed
    mixed_weight = 0.5
    no_regression = false
    min_delta = 0.0       # an improvement must exceed this; >= 0, so a regression never passes
    max_chars = 0         # size budget of the editable text (0 = none); past it, no edit grows it

    [slow_update]
    enabled = true
    gated = true          # false = force-accept at epoch boundaries
    meta = true

    [backends]            # command-line flags win over these
    optimizer = "openai:gpt-5.5"
    target = "claude-cli:sonnet"
    [backends.options]    # shared by both roles; or per role under [backends.options.optimizer]
    timeout = 120

Unknown sections or keys and values of the wrong type are errors (see
:mod:`skillopt_core.config_schema`); a relative ``seed_skill`` is looked up next to the config
file first, then in the working directory.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from skillopt_core.config_schema import ConfigFile, parse_config
from skillopt_core.errors import UsageError
from skillopt_core.optim.gate import GatePolicy
from skillopt_core.optim.schedule import LRSchedule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(UsageError):
    """The configuration file or a flag holds a value we cannot use."""


@dataclass(frozen=True)
class TrainConfig:
    env: str = "qa"
    epochs: int = 4
    batch_size: int = 40
    minibatch_size: int = 8
    eval_samples: int = 1
    workers: int = 8
    seed: int = 0
    seed_skill: str = ""
    lr: LRSchedule = field(default_factory=LRSchedule)
    gate: GatePolicy = field(default_factory=GatePolicy)
    slow_update: bool = True
    slow_update_gated: bool = True
    meta_skill: bool = True
    gated: bool = True  # False (an ablation): every candidate is accepted, whatever its score
    credit: bool = False  # re-gate a rejected bundle's edits alone (skillopt_core.optim.credit)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.gate.max_chars:  # a run from before the budget existed still resumes
            data["gate"].pop("max_chars")
        return data

    def training_identity(self) -> dict[str, Any]:
        """The settings a resumed run must share with the original (workers may differ)."""
        data = self.to_json()
        data.pop("workers")
        return data


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _set(section: BaseModel) -> dict[str, Any]:
    return {k: v for k, v in section.model_dump().items() if v is not None}


def config_from_mapping(data: Mapping[str, Any]) -> TrainConfig:
    """A validated :class:`TrainConfig` from a parsed TOML mapping (see the module docstring).

    Every section is checked against :mod:`skillopt_core.config_schema`: unknown sections and
    keys, and values of the wrong type, raise :class:`ConfigError` naming each problem."""
    return validate(_build(_parse(data)))


def _parse(data: Mapping[str, Any]) -> ConfigFile:
    try:
        return parse_config(data)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _build(parsed: ConfigFile) -> TrainConfig:
    config = TrainConfig(**_set(parsed.train))
    lr, gate, slow = _set(parsed.lr), _set(parsed.gate), _set(parsed.slow_update)
    try:
        schedule = LRSchedule(
            kind=lr.get("schedule", config.lr.kind),
            max_edits=lr.get("max", config.lr.max_edits),
            min_edits=lr.get("min", config.lr.min_edits),
        )
    except ValueError as exc:
        raise ConfigError(f"[lr] {exc}") from None
    return replace(
        config,
        lr=schedule,
        gate=replace(config.gate, **gate),
        slow_update=slow.get("enabled", config.slow_update),
        slow_update_gated=slow.get("gated", config.slow_update_gated),
        meta_skill=slow.get("meta", config.meta_skill),
    )


MAX_WORKERS = 64
"""More calls in flight than any provider's rate limit allows: a typo, or a config that
would start thousands of threads."""

_INT_FIELDS = ("epochs", "batch_size", "minibatch_size", "eval_samples", "workers", "seed")
_BOOL_FIELDS = ("slow_update", "slow_update_gated", "meta_skill")


def validate(config: TrainConfig) -> TrainConfig:
    """Check a :class:`TrainConfig` however it was built (TOML, flags, or code); return it."""
    for name in _INT_FIELDS:
        value = getattr(config, name)
        _check(type(value) is int, f"{name} must be an integer, got {value!r}")
    for name in _BOOL_FIELDS:
        _check(isinstance(getattr(config, name), bool), f"{name} must be true or false")
    _check(isinstance(config.gate.no_regression, bool), "gate no_regression must be true or false")
    _check(isinstance(config.env, str) and bool(config.env), "env must name an environment")
    _check(config.epochs >= 1, "epochs must be >= 1")
    _check(config.batch_size >= 1, "batch_size must be >= 1")
    _check(config.minibatch_size >= 1, "minibatch_size must be >= 1")
    _check(config.eval_samples >= 1, "eval_samples must be >= 1")
    _check(
        1 <= config.workers <= MAX_WORKERS,
        f"workers must be 1 to {MAX_WORKERS} (model calls in flight at once)",
    )
    _check(
        config.lr.kind in ("constant", "linear", "cosine"),
        "lr schedule must be constant, linear or cosine",
    )
    _check(1 <= config.lr.min_edits <= config.lr.max_edits, "lr needs 1 <= min <= max")
    _check(
        config.gate.metric in ("hard", "soft", "mixed"), "gate metric must be hard, soft or mixed"
    )
    _check(0.0 <= config.gate.mixed_weight <= 1.0, "gate mixed_weight must be within [0, 1]")
    max_chars = config.gate.max_chars
    _check(
        type(max_chars) is int and max_chars >= 0,
        f"gate max_chars must be an integer >= 0 (0: no budget), got {max_chars!r}",
    )
    min_delta = config.gate.min_delta
    _check(
        isinstance(min_delta, (int, float)) and not isinstance(min_delta, bool),
        f"gate min_delta must be a number, got {min_delta!r}",
    )
    _check(
        math.isfinite(min_delta) and min_delta >= 0.0,
        f"gate min_delta must be a finite number >= 0, got {min_delta!r}",
    )
    return config


@dataclass(frozen=True)
class BackendChoice:
    """Which backends the roles use, as named in the config's ``[backends]`` table."""

    optimizer: str | None = None
    target: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def _read_toml(path: str | Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data: dict[str, Any] = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    return data


def load_config(path: str | Path | None) -> TrainConfig:
    return config_from_mapping(_read_toml(path))


def backend_choice_from_mapping(data: Mapping[str, Any]) -> BackendChoice:
    table = _parse(data).backends
    return BackendChoice(table.optimizer, table.target, dict(table.options))


def load_backend_choice(path: str | Path | None) -> BackendChoice:
    return backend_choice_from_mapping(_read_toml(path))
