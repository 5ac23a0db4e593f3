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

    [slow_update]
    enabled = true
    gated = true          # false = force-accept at epoch boundaries
    meta = true

    [backends]            # command-line flags win over these
    optimizer = "openai:gpt-5.5"
    target = "claude-cli:sonnet"
    [backends.options]    # shared by both roles; or per role under [backends.options.optimizer]
    timeout = 120
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def training_identity(self) -> dict[str, Any]:
        """The settings a resumed run must share with the original (workers may differ)."""
        data = self.to_json()
        data.pop("workers")
        return data


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table")
    return value


def config_from_mapping(data: Mapping[str, Any]) -> TrainConfig:
    train, lr, gate, slow = (_section(data, n) for n in ("train", "lr", "gate", "slow_update"))
    known = {f.name for f in fields(TrainConfig)} - {
        "lr",
        "gate",
        "slow_update",
        "slow_update_gated",
        "meta_skill",
    }
    unknown = sorted(set(train) - known)
    _check(not unknown, f"unknown [train] keys: {', '.join(unknown)}")
    try:
        return validate(_build(train, lr, gate, slow))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(str(exc)) from None


def _build(
    train: Mapping[str, Any],
    lr: Mapping[str, Any],
    gate: Mapping[str, Any],
    slow: Mapping[str, Any],
) -> TrainConfig:
    config = TrainConfig(**dict(train))
    return replace(
        config,
        lr=LRSchedule(
            kind=lr.get("schedule", config.lr.kind),
            max_edits=int(lr.get("max", config.lr.max_edits)),
            min_edits=int(lr.get("min", config.lr.min_edits)),
        ),
        gate=GatePolicy(
            metric=gate.get("metric", config.gate.metric),
            mixed_weight=float(gate.get("mixed_weight", config.gate.mixed_weight)),
            no_regression=bool(gate.get("no_regression", config.gate.no_regression)),
        ),
        slow_update=bool(slow.get("enabled", config.slow_update)),
        slow_update_gated=bool(slow.get("gated", config.slow_update_gated)),
        meta_skill=bool(slow.get("meta", config.meta_skill)),
    )


def validate(config: TrainConfig) -> TrainConfig:
    _check(config.epochs >= 1, "epochs must be >= 1")
    _check(config.batch_size >= 1, "batch_size must be >= 1")
    _check(config.minibatch_size >= 1, "minibatch_size must be >= 1")
    _check(config.eval_samples >= 1, "eval_samples must be >= 1")
    _check(config.workers >= 1, "workers must be >= 1")
    _check(
        config.lr.kind in ("constant", "linear", "cosine"),
        "lr schedule must be constant, linear or cosine",
    )
    _check(1 <= config.lr.min_edits <= config.lr.max_edits, "lr needs 1 <= min <= max")
    _check(
        config.gate.metric in ("hard", "soft", "mixed"), "gate metric must be hard, soft or mixed"
    )
    _check(0.0 <= config.gate.mixed_weight <= 1.0, "gate mixed_weight must be within [0, 1]")
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
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    return data


def load_config(path: str | Path | None) -> TrainConfig:
    return config_from_mapping(_read_toml(path))


def load_backend_choice(path: str | Path | None) -> BackendChoice:
    table = _section(_read_toml(path), "backends")
    options = table.get("options", {})
    if not isinstance(options, Mapping):
        raise ConfigError("[backends.options] must be a table")
    for role in ("optimizer", "target"):
        if role in table and not isinstance(table[role], str):
            raise ConfigError(f"[backends] {role} must be a string such as 'openai:gpt-5.5'")
    return BackendChoice(table.get("optimizer"), table.get("target"), dict(options))
