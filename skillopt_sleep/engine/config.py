"""One configuration for the nightly engine, merged from four layers, each value with its source.

    defaults < user config (platformdirs: ~/.config/skillopt-sleep/config.toml on Linux)
             < project config (<project>/.skillopt-sleep/config.toml)
             < environment (SKILLOPT_SLEEP_<SECTION>_<KEY>, e.g. SKILLOPT_SLEEP_BACKENDS_TARGET)
             < flags (``overrides={"backends.target": "claude-cli"}``)

Every layer is validated against one schema (pydantic, ``extra="forbid"``, strict types for TOML):
a misspelt key or section is an error that names the file and suggests the nearest valid name.
Values from the environment and from flags are text and are converted by the field's type. Numbers
must be finite, and ``night.since`` and ``night.sources`` are checked here, so every command (not
only ``run``) reports a value the night could not use.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from skillopt_core.backends.options import check_roles
from skillopt_core.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ENV_PREFIX = "SKILLOPT_SLEEP_"
PROJECT_CONFIG = Path(".skillopt-sleep") / "config.toml"
# Variables with our prefix that are not settings: the state dir (paths.py), the user config file
# (below), the MCP server's project (mcp/workspace.py) and the plugins' interpreter (plugins/codex).
_NOT_CONFIG_ENV = (
    "SKILLOPT_SLEEP_HOME",
    "SKILLOPT_SLEEP_CONFIG",
    "SKILLOPT_SLEEP_PROJECT",
    "SKILLOPT_SLEEP_PYTHON",
)


class ConfigError(UsageError):
    """A configuration value we cannot use; the message names where it came from."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class BackendsSection(_Section):
    optimizer: str = "mock"
    target: str = "mock"
    judge: str = ""  # rubric judge role; "" = rule checks only
    options: dict[str, Any] = Field(default_factory=dict)


class NightSection(_Section):
    sources: list[str] = Field(default_factory=lambda: ["claude", "codex", "copilot"])
    since: str = "30d"  # how far back before the first night the nights read (gather.window)
    max_tasks: int = Field(24, ge=1)
    samples: int = Field(2, ge=1)  # K replays per task
    min_val_tasks: int = Field(2, ge=1)
    auto_adopt: bool = False
    memory: bool = False  # also improve the harness memory file (CLAUDE.md / AGENTS.md / ...)
    learned_skill_dir: str = ""  # where the managed learned skill lives ("" = by harness)
    seed: int = 0


class BudgetSection(_Section):
    max_calls: int = Field(400, ge=0)  # 0 = no limit
    max_tokens: int = Field(0, ge=0)
    max_usd: float = Field(0.0, ge=0.0)


class MineSection(_Section):
    embedder: str = "auto"
    min_family_size: int = Field(2, ge=1)
    recall_k: int = Field(3, ge=0)
    families: bool = True  # false (an ablation): every request is its own task, no recurrence
    confirm_budget: int = Field(8, ge=0)  # optimizer calls that may confirm or split families


class TrainSection(_Section):
    minibatch_size: int = Field(8, ge=1)
    lr_max: int = Field(4, ge=1)
    lr_min: int = Field(2, ge=1)
    gate_metric: Literal["hard", "soft", "mixed"] = "hard"
    slow_update: bool = True
    meta: bool = True
    workers: int = Field(4, ge=1)
    gate: bool = True  # false (an ablation): every candidate is accepted
    buffer: bool = True  # false (an ablation): rejected edits are forgotten between nights
    credit: bool = True  # re-gate a rejected bundle's edits alone before blaming them
    # The learned text's size budget: read into every session that loads the skill, it must
    # not grow night after night; past it only edits that keep or cut its length pass (0 = none).
    max_learned_chars: int = Field(8000, ge=0)


class ScheduleSection(_Section):
    at: str = Field("03:17", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")


class HomesSection(_Section):
    claude: str = ""
    codex: str = ""
    copilot: str = ""
    vscode: str = ""


class SleepSettings(_Section):
    backends: BackendsSection = Field(default_factory=BackendsSection)
    night: NightSection = Field(default_factory=NightSection)
    budget: BudgetSection = Field(default_factory=BudgetSection)
    mine: MineSection = Field(default_factory=MineSection)
    train: TrainSection = Field(default_factory=TrainSection)
    schedule: ScheduleSection = Field(default_factory=ScheduleSection)
    homes: HomesSection = Field(default_factory=HomesSection)


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
        own = _Layer(self.settings.model_dump(), dict(self.sources))
        return _merge([own, _layer_from_flat(overrides, source)])

    def check_names(self) -> None:
        """A misspelt backend or embedder is an error naming the known ones now, not on the
        first night with work (nor every night, from a schedule). Kept out of loading, which
        would import the embedders for every command."""
        from skillopt_core.backends import known_spec

        for spec in (self.backends.optimizer, self.backends.target, self.backends.judge):
            if spec:
                known_spec(spec)
        if self.mine.embedder != "auto":  # the default needs no check (nor the embedders)
            from skillopt_sleep.mine.embed import EMBEDDERS, embedder_names

            if self.mine.embedder not in embedder_names():
                EMBEDDERS.get(self.mine.embedder)  # raises, naming the known ones
            if self.mine.embedder == "minilm":  # named, but can it load here?
                from skillopt_sleep.mine.embed.minilm import require_minilm

                require_minilm()


@dataclass
class _Layer:
    values: dict[str, dict[str, Any]]
    sources: dict[str, str]


def _fields(section: str) -> dict[str, Any]:
    model = SleepSettings.model_fields[section].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return dict(model.model_fields)


def _suggest(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _check_shape(data: Mapping[str, Any], where: str) -> None:
    sections = list(SleepSettings.model_fields)
    for section, table in data.items():
        if section not in sections:
            owners = [s for s in sections if section in _fields(s)]
            if owners and not isinstance(table, Mapping):  # `max_tasks = 3` above any [night]
                raise ConfigError(
                    f"{where}: {section} is a key of [{owners[0]}], not a section; "
                    f"write it under a [{owners[0]}] line"
                )
            raise ConfigError(
                f"{where}: unknown section [{section}]{_suggest(section, sections)}; "
                f"valid sections: {', '.join(sections)}"
            )
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: [{section}] must be a table")
        keys = list(_fields(section))
        for key in table:
            if key not in keys:
                raise ConfigError(
                    f"{where}: unknown key {section}.{key}{_suggest(key, keys)}; "
                    f"valid keys of [{section}]: {', '.join(keys)}"
                )


def _coerce(section: str, key: str, raw: Any, where: str) -> Any:
    """Text from the environment or a flag -> the field's type (pydantic's lax conversion for
    scalars; a comma list for lists; a TOML inline table for tables)."""
    if not isinstance(raw, str):
        return raw
    annotation = _fields(section)[key].annotation
    text = raw.strip()
    try:
        if get_origin(annotation) is list:
            return [p.strip() for p in text.split(",") if p.strip()]
        if get_origin(annotation) is dict:
            parsed = tomllib.loads(f"v = {text}")["v"]
            if not isinstance(parsed, dict):
                raise ValueError("expected an inline table such as {timeout = 60}")
            return parsed
        return TypeAdapter(annotation).validate_python(text, strict=False)
    except ValidationError as exc:
        reason = exc.errors()[0]["msg"]
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        reason = str(exc)
    raise ConfigError(f"{where}: {section}.{key}={raw!r} is not valid: {reason}")


def _layer_from_flat(flat: Mapping[str, Any], source: str) -> _Layer:
    values: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for dotted, raw in flat.items():
        if raw is None:
            continue
        section, _, key = dotted.partition(".")
        _check_shape({section: {key: raw}}, source)
        values.setdefault(section, {})[key] = _coerce(section, key, raw, source)
        sources[dotted] = source
    return _Layer(values, sources)


def _read_toml(path: Path) -> _Layer | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if path.is_symlink():  # a config kept elsewhere (dotfiles) that moved: not "no config"
            raise ConfigError(
                f"config file {path} is a link to {os.readlink(path)}, which does not exist"
            ) from None
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(_utf8(path, raw))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}",
            hint=f"correct that line of {path} (or move the file aside to use the defaults)",
        ) from None
    _check_shape(data, str(path))
    sources = {f"{s}.{k}": str(path) for s, table in data.items() for k in table}
    return _Layer({s: dict(t) for s, t in data.items()}, sources)


def _utf8(path: Path, raw: bytes) -> str:
    """TOML is UTF-8; a stray byte is reported where it is, like a TOML syntax error."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - raw.rfind(b"\n", 0, exc.start)
        raise ConfigError(
            f"{path} is not valid TOML: invalid UTF-8 byte 0x{raw[exc.start]:02x} "
            f"(at line {line}, column {column})",
            hint=f"save {path} as UTF-8 text",
        ) from None


def _unknown_env(name: str, sections: list[str]) -> ConfigError:
    """A prefixed variable that names no section: suggest the setting or variable meant."""
    rest = name[len(ENV_PREFIX) :]
    head, _, tail = rest.partition("_")
    others = [n[len(ENV_PREFIX) :].lower() for n in _NOT_CONFIG_ENV]
    close = difflib.get_close_matches(head.lower(), sections + others, n=1, cutoff=0.5)
    hint = ""
    if close and close[0] in sections and tail:
        hint = f" (did you mean {ENV_PREFIX}{close[0].upper()}_{tail}?)"
    elif close and close[0] in others:
        hint = f" (did you mean {ENV_PREFIX}{close[0].upper()}?)"
    return ConfigError(
        f"environment: {name} names no setting{hint}; settings are "
        f"{ENV_PREFIX}<SECTION>_<KEY> with a section of {', '.join(sections)}; "
        f"other variables: {', '.join(_NOT_CONFIG_ENV)}"
    )


def _env_layer(environ: Mapping[str, str]) -> _Layer:
    flat: dict[str, str] = {}
    sections = list(SleepSettings.model_fields)
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or name in _NOT_CONFIG_ENV:
            continue
        rest = name[len(ENV_PREFIX) :].lower()
        section = next((s for s in sections if rest.startswith(s + "_")), None)
        if section is None:
            raise _unknown_env(name, sections)
        flat[f"{section}.{rest[len(section) + 1 :]}"] = value
    layer = _layer_from_flat(flat, "environment")
    layer.sources = {k: f"env {ENV_PREFIX}{k.replace('.', '_').upper()}" for k in layer.sources}
    return layer


def _merge(layers: list[_Layer]) -> SleepConfig:
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
                f"{name!r}{_suggest(name, known)}; known: {', '.join(known)}, all"
            )


def user_config_path() -> Path:
    override = os.environ.get("SKILLOPT_SLEEP_CONFIG")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("skillopt-sleep", appauthor=False)) / "config.toml"


def project_config_path(project: str | os.PathLike[str]) -> Path:
    return Path(project) / PROJECT_CONFIG


def load_config(
    project: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> SleepConfig:
    """The merged configuration for ``project`` (see the module docstring for the layers)."""
    layers: list[_Layer] = []
    for path in (user_config_path(), project_config_path(project) if project else None):
        layer = _read_toml(path) if path is not None else None
        if layer is not None:
            layers.append(layer)
    layers.append(_env_layer(os.environ if environ is None else environ))
    layers.append(_layer_from_flat(overrides or {}, "flag"))
    return _merge(layers)
