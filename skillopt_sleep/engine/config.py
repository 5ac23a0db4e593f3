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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from pydantic import ValidationError

from skillopt_core.backends.options import check_roles
from skillopt_core.errors import UsageError
from skillopt_sleep.engine.config_env import env_layer
from skillopt_sleep.engine.config_layers import (
    Layer,
    layer_from_flat,
    read_toml,
    suggest,
    trusted_digests,
)
from skillopt_sleep.engine.config_schema import (
    BACKEND_KEYS,
    PROJECT_OPTIONS,
    USER_ONLY,
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
    "Refusal",
    "SleepConfig",
    "load_config",
    "project_config_path",
    "user_config_path",
]


@dataclass(frozen=True)
class Refusal:
    """A user-only value an untrusted layer set, and why it was not used."""

    source: str
    reason: str


@dataclass(frozen=True)
class SleepConfig:
    """The merged settings plus, for every ``section.key``, the layer its value came from, and
    the user-only values of an untrusted project file that were left out (``refused``)."""

    settings: SleepSettings
    sources: Mapping[str, str]
    refused: Mapping[str, Refusal] = field(default_factory=dict)

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

    def home_origin(self, name: str) -> str:
        """Where ``homes.<name>`` was set, as the user would look for it: the flag, the
        environment variable, or the key in its file."""
        source = self.sources.get(f"homes.{name}", "default")
        if source == "flag":
            return f"--{name}-home"
        if source.startswith("env "):
            return source.removeprefix("env ")
        return f"homes.{name} in {source}"

    def missing_home_notes(self) -> list[str]:
        """A note for each home set for a source of ``night.sources`` that is no folder (see
        ``harvest.missing_home_notes``): a mistyped one reads nothing, silently otherwise."""
        from skillopt_sleep.harvest import missing_home_notes

        return missing_home_notes(self.night.sources, self.homes, self.home_origin)

    def flat(self) -> dict[str, Any]:
        """``{"section.key": value}`` for every setting (``config show``)."""
        out: dict[str, Any] = {}
        for section, values in self.settings.model_dump(mode="json").items():
            for key, value in values.items():
                out[f"{section}.{key}"] = value
        return out

    def with_overrides(self, overrides: Mapping[str, Any], source: str = "flag") -> SleepConfig:
        own = Layer(self.settings.model_dump(), dict(self.sources))
        merged = _merge([own, layer_from_flat(overrides, source)])
        return SleepConfig(merged.settings, merged.sources, self.refused)

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
            if self.mine.embedder == "mpnet":
                from skillopt_sleep.mine.embed.mpnet import require_mpnet

                require_mpnet()


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
        low, high = (sources.get(f"train.{k}", "default") for k in ("lr_min", "lr_max"))
        raise ConfigError(
            f"train.lr_min {settings.train.lr_min} ({low}) must not exceed train.lr_max "
            f"{settings.train.lr_max} ({high})",
            hint="lower lr_min or raise lr_max where they are set",
        )
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
        raise ConfigError(
            f"night.since ({sources.get('night.since', 'default')}): {exc.message}",
            hint=f"set a window nights can use, or leave it unset for {NightSection().since}",
        ) from None
    registry = load_sources()
    known = sorted(set(registry.names()) | {registry.get(n).harness for n in registry})
    for name in night.sources:
        if name != "all" and name not in known:
            raise ConfigError(
                f"night.sources ({sources.get('night.sources', 'default')}): unknown source "
                f"{name!r}{suggest(name, known)}; known: {', '.join(known)}, all"
            )


TRUST_HINT = (
    "read the file; if you wrote it or trust it, run `skillopt-sleep config trust -p {project}` "
    "(again after it changes), or set these in your user config"
)


def _inside(folder: str) -> bool:
    """``folder`` is a relative path that stays inside the folder it is joined to."""
    for pure in (PurePosixPath(folder), PureWindowsPath(folder)):
        if pure.is_absolute() or pure.drive or pure.root or ".." in pure.parts:
            return False
    return not folder.startswith("~")


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else None


def provider(spec: str) -> str:
    """The provider a backend spec names, as the backend registry reads it: the name before any
    ``:MODEL`` (``openai`` for ``openai:gpt-5-mini``, ``claude-cli`` for a bare ``claude-cli``);
    "" for a spec naming none (an empty ``backends.judge``: no judge)."""
    return spec.strip().partition(":")[0]


def _why_provider(value: Any, base: Any) -> str | None:
    """Why an untrusted layer may not name backend ``value`` where the user has ``base``: it
    names another provider (None: the same one, any model of it, or none, which calls nobody)."""
    if not isinstance(value, str):
        return None  # a wrong type is the schema's error
    asked = provider(value)
    have = provider(base) if isinstance(base, str) else ""
    if not asked or asked == have:
        return None
    shown = repr(asked) if len(asked) <= 40 else repr(asked[:40]) + "..."
    yours = (
        f"yours for this role is {have!r}, of which only the model may change here ({have}:MODEL)"
        if have
        else "you have none for this role"
    )
    return (
        f"it names the provider {shown} (who is called and billed) and {yours}; to use "
        f"{shown}, set it in your user config, or in the project's config file and run "
        "`skillopt-sleep config trust`"
    )


def _why_refused(dotted: str, value: Any, base: Any) -> str | None:
    """Why an untrusted layer may not set ``dotted`` to ``value`` over ``base`` (None: it may)."""
    section = dotted.partition(".")[0]
    if dotted in BACKEND_KEYS:
        return _why_provider(value, base)
    if section == "homes":
        if not isinstance(value, str) or not value:  # a wrong type is the schema's error
            return None
        return "which transcripts a night reads is the user's choice"
    if dotted == "night.auto_adopt":
        return "only the user lets a night change live files" if value is True else None
    if dotted == "night.learned_skill_dir":
        if not isinstance(value, str) or _inside(value):
            return None  # a wrong type is the schema's error
        return "a night writes only inside the project: name a relative folder in it"
    if section == "budget":
        new, old = _number(value), _number(base)
        if new is None or old is None or old == 0 or (new != 0 and new <= old):
            return None
        limit = "no limit" if old == 0 else f"{base}"
        return f"a budget limit may only be lowered (0 is no limit; the limit is {limit})"
    return "not settable here"


def _refused_options(options: Any) -> list[str]:
    """The ``backends.options`` keys (``key`` or ``role.key``) an untrusted layer may not set."""
    if not isinstance(options, Mapping):
        return []
    out = []
    for key, value in options.items():
        if key in ("optimizer", "target") and isinstance(value, Mapping):
            out += [f"{key}.{k}" for k in value if k not in PROJECT_OPTIONS]
        elif key not in PROJECT_OPTIONS:
            out.append(str(key))
    return out


def _gate(layer: Layer, base: Mapping[str, Mapping[str, Any]]) -> dict[str, Refusal]:
    """Take out of ``layer`` (in place) the user-only values it may not set; return them. A
    refused backend option takes the layer's whole ``[backends]`` table with it: its backend
    names without the endpoint or program they were written for would send the prompts
    elsewhere (a local model's name, to the provider's own server)."""
    refused: dict[str, Refusal] = {}
    for section, table in layer.values.items():
        for key, value in list(table.items()):
            dotted = f"{section}.{key}"
            source = layer.sources.get(dotted, "?")
            if dotted not in USER_ONLY:
                continue
            if dotted == "backends.options":
                try:  # a misspelt role table is named as such, not refused as a key
                    check_roles(value if isinstance(value, Mapping) else {})
                except UsageError as exc:
                    raise ConfigError(f"{dotted} ({source}): {exc.message}") from None
                for name in _refused_options(value):
                    where = "where prompts go, with which credentials and what runs is the user's"
                    refused[f"{dotted}.{name}"] = Refusal(source, where)
                continue
            why = _why_refused(dotted, value, base.get(section, {}).get(key))
            if why is not None:
                refused[dotted] = Refusal(source, why)
                del table[key]
                layer.sources.pop(dotted, None)
    if any(k.startswith("backends.options.") for k in refused):
        for key in layer.values.pop("backends", {}):
            dotted = f"backends.{key}"
            if dotted != "backends.options":
                why = "left out with the refused backend options of the same file"
                refused[dotted] = Refusal(layer.sources.get(dotted, "?"), why)
            layer.sources.pop(dotted, None)
    return refused


def _base(layers: list[Layer]) -> dict[str, dict[str, Any]]:
    values: dict[str, dict[str, Any]] = SleepSettings().model_dump()
    for layer in layers:
        for section, table in layer.values.items():
            values.setdefault(section, {}).update(table)
    return values


def load_config(
    project: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    chosen_by_model: Mapping[str, Any] | None = None,
) -> SleepConfig:
    """The merged configuration for ``project`` (see the module docstring for the layers).

    The project's file is the user's only once they trusted it as it is (``config trust``);
    until then its user-only values (:data:`~.config_schema.USER_ONLY`) that would widen
    anything (a backend of another provider than the user's for that role, among them) are
    left out and listed in ``refused``. ``chosen_by_model``: settings a model
    chose (MCP tool arguments), applied last under the same rule, never trusted: a refused one
    is a ConfigError."""
    layers: list[Layer] = []
    refused: dict[str, Refusal] = {}
    user = read_toml(user_config_path())
    if user is not None:
        layers.append(user)
    layer = read_toml(project_config_path(project)) if project else None
    own = [
        env_layer(os.environ if environ is None else environ),
        layer_from_flat(overrides or {}, "flag"),
    ]
    if project and layer is not None:
        resolved = str(Path(project).expanduser().resolve())
        if trusted_digests().get(resolved) != layer.digest:
            # weighed against all the user's own layers: the environment and flags that come
            # after it are theirs too (an exported backend is the provider they chose)
            refused = _gate(layer, _base([*layers, *own]))
        layers.append(layer)
    layers += own
    if chosen_by_model:
        asked = layer_from_flat(chosen_by_model, "tool argument")
        denied = _gate(asked, _base(layers))
        if denied:
            raise ConfigError(
                "refused: "
                + "; ".join(
                    f"{k}={chosen_by_model.get(k)!r}: {r.reason}" for k, r in denied.items()
                ),
                hint="only the user widens these: in their config, or with the CLI's flags",
            )
        layers.append(asked)
    merged = _merge(layers)
    return SleepConfig(merged.settings, merged.sources, refused)
