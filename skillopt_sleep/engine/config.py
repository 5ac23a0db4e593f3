"""One configuration for the nightly engine, merged from four layers, each value with its source.

    defaults < user config (platformdirs: ~/.config/skillopt-sleep/config.toml on Linux)
             < project config (<project>/.skillopt-sleep/config.toml)
             < environment (SKILLOPT_SLEEP_<SECTION>_<KEY>, e.g. SKILLOPT_SLEEP_BACKENDS_TARGET)
             < flags (``overrides={"backends.target": "claude-cli"}``)

Every layer is validated against one schema (pydantic, ``extra="forbid"``, strict types for TOML):
a misspelt key or section is an error that names the file and suggests the nearest valid name.
Values from the environment and from flags are text and are converted by the field's type. Numbers
must be finite, and ``night.since`` and ``night.sources`` are checked here, so every command (not
only ``run``) reports a value the night could not use. The schema is :mod:`.config_schema`, a
layer is read by :mod:`.config_layers` (files, flags) and :mod:`.config_env` (the environment);
merging and checking the whole is here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skillopt_core.backends.options import check_roles
from skillopt_core.errors import UsageError
from skillopt_sleep.engine.config_env import env_layer
from skillopt_sleep.engine.config_layers import Layer, layer_from_flat, read_toml, suggest
from skillopt_sleep.engine.config_schema import (
    BackendsSection,
    BudgetSection,
    ConfigError,
    MineSection,
    NightSection,
    ScheduleSection,
    SleepSettings,
    TrainSection,
)
from skillopt_sleep.paths import PROJECT_CONFIG, project_config_path, user_config_path

__all__ = [
    "PROJECT_CONFIG",
    "ConfigError",
    "SleepConfig",
    "load_config",
    "project_config_path",
    "user_config_path",
]


@dataclass(frozen=True)
class SleepConfig:
    """The merged settings plus, for every ``section.key``, the layer its value came from."""

    settings: SleepSettings
    sources: Mapping[str, str]

    @property
    def backends(self) -> BackendsSection:
        return self.settings.backends

    @property
    def night(self) -> NightSection:
        return self.settings.night

    @property
    def budget(self) -> BudgetSection:
        return self.settings.budget

    @property
    def mine(self) -> MineSection:
        return self.settings.mine

    @property
    def train(self) -> TrainSection:
        return self.settings.train

    @property
    def schedule(self) -> ScheduleSection:
        return self.settings.schedule

    @property
    def homes(self) -> dict[str, Path]:
        return {k: Path(v).expanduser() for k, v in self.settings.homes.model_dump().items() if v}

    def flat(self) -> dict[str, Any]:
        """``{"section.key": value}`` for every setting (``config show``)."""
        out: dict[str, Any] = {}
        for section, values in self.settings.model_dump(mode="json").items():
            for key, value in values.items():
                out[f"{section}.{key}"] = value
        return out

    def with_overrides(self, overrides: Mapping[str, Any], source: str = "flag") -> SleepConfig:
        own = Layer(self.settings.model_dump(), dict(self.sources))
        return _merge([own, layer_from_flat(overrides, source)])

    def check_names(self) -> None:
        """A misspelt backend or embedder is an error naming the known ones now, not on the
        first night with work (nor every night, from a schedule). Kept out of loading, which
        would import the embedders for every command."""
        from skillopt_core.backends import known_spec

        for spec in (self.backends.optimizer, self.backends.target, self.backends.judge):
            if spec:
                known_spec(spec)
        if self.mine.embedder != "auto":  # the default needs no check (nor the embedders)
            from skillopt_sleep.mine.embed import check_embedder_name

            check_embedder_name(self.mine.embedder)  # raises, naming the known ones
            if self.mine.embedder == "minilm":  # named, but can it load here?
                from skillopt_sleep.mine.embed.minilm import require_minilm

                require_minilm()


def _merge(layers: list[Layer]) -> SleepConfig:
    values: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        for section, table in layer.values.items():
            values.setdefault(section, {}).update(table)
        sources.update(layer.sources)
    try:
        settings = SleepSettings.model_validate(values)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            dotted = ".".join(str(p) for p in error["loc"][:2])
            problems.append(f"{dotted} ({sources.get(dotted, 'default')}): {error['msg']}")
        raise ConfigError("invalid configuration: " + "; ".join(problems)) from None
    if settings.train.lr_min > settings.train.lr_max:
        raise ConfigError("train.lr_min must not exceed train.lr_max")
    _check_night(settings.night, sources)
    try:
        check_roles(settings.backends.options)
    except UsageError as exc:
        where = sources.get("backends.options", "default")
        raise ConfigError(f"backends.options ({where}): {exc.message}") from None
    flat_sources = {
        f"{s}.{k}": sources.get(f"{s}.{k}", "default")
        for s, table in settings.model_dump().items()
        for k in table
    }
    return SleepConfig(settings, flat_sources)


def _check_night(night: NightSection, sources: Mapping[str, str]) -> None:
    """What only the harvest can read: the first night's window and the source names. Checked
    only when a layer sets them, so a default configuration loads without the harvest."""
    if all(sources.get(k, "default") == "default" for k in ("night.since", "night.sources")):
        return
    from skillopt_sleep.harvest import load_sources, parse_since

    try:
        parse_since(night.since)
    except UsageError as exc:
        raise ConfigError(f"night.since ({sources.get('night.since', 'default')}): {exc}") from None
    registry = load_sources()
    known = sorted(set(registry.names()) | {registry.get(n).harness for n in registry})
    for name in night.sources:
        if name != "all" and name not in known:
            raise ConfigError(
                f"night.sources ({sources.get('night.sources', 'default')}): unknown source "
                f"{name!r}{suggest(name, known)}; known: {', '.join(known)}, all"
            )


def load_config(
    project: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> SleepConfig:
    """The merged configuration for ``project`` (see the module docstring for the layers)."""
    layers: list[Layer] = []
    for path in (user_config_path(), project_config_path(project) if project else None):
        layer = read_toml(path) if path is not None else None
        if layer is not None:
            layers.append(layer)
    layers.append(env_layer(os.environ if environ is None else environ))
    layers.append(layer_from_flat(overrides or {}, "flag"))
    return _merge(layers)
