"""One configuration layer read: a TOML file, or ``section.key`` text from a flag or the
environment, checked against the schema's shape (a misspelt section or key names the nearest
valid one) and its text converted by the field's type. Merging the layers is :mod:`.config`'s.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from skillopt_sleep.engine.config_schema import ConfigError, SleepSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass
class Layer:
    values: dict[str, dict[str, Any]]
    sources: dict[str, str]
    digest: str = ""  # sha256 of a file's bytes, as read (a project's trust is for these bytes)


def _fields(section: str) -> dict[str, Any]:
    model = SleepSettings.model_fields[section].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return dict(model.model_fields)


def suggest(name: str, choices: list[str]) -> str:
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
                f"{where}: unknown section [{section}]{suggest(section, sections)}; "
                f"valid sections: {', '.join(sections)}"
            )
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: [{section}] must be a table")
        keys = list(_fields(section))
        for key in table:
            if key not in keys:
                raise ConfigError(
                    f"{where}: unknown key {section}.{key}{suggest(key, keys)}; "
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


def layer_from_flat(flat: Mapping[str, Any], source: str) -> Layer:
    values: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for dotted, raw in flat.items():
        if raw is None:
            continue
        section, _, key = dotted.partition(".")
        _check_shape({section: {key: raw}}, source)
        values.setdefault(section, {})[key] = _coerce(section, key, raw, source)
        sources[dotted] = source
    return Layer(values, sources)


def read_toml(path: Path) -> Layer | None:
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
    digest = hashlib.sha256(raw).hexdigest()
    return Layer({s: dict(t) for s, t in data.items()}, sources, digest)


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


TRUST_FILE = "trusted-projects.json"


def trust_path() -> Path:
    """The user's trust decisions: ``{"projects": {project root: sha256 of its config file}}``,
    in the engine's private state dir (no project can write there)."""
    from skillopt_sleep.paths import state_dir

    return state_dir() / TRUST_FILE


def trusted_digests() -> dict[str, str]:
    """Project root -> the digest of the config file the user trusted there. A missing or
    damaged file trusts nothing (``config trust`` writes it anew)."""
    try:
        data = json.loads(trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {str(k): str(v) for k, v in projects.items()}


def record_trust(project: Path, digest: str | None) -> None:
    """Trust ``project``'s config file with ``digest`` (None: trust it no more), atomically."""
    from skillopt_sleep.paths import PRIVATE_FILE_MODE, private_dir

    entries = trusted_digests()
    key = str(project.expanduser().resolve())
    if digest is None:
        entries.pop(key, None)
    else:
        entries[key] = digest
    path = trust_path()
    private_dir(path.parent)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"projects": dict(sorted(entries.items()))}, out, indent=2)
        out.write("\n")
    os.replace(temp, path)
