"""The environment layer: ``SKILLOPT_SLEEP_<SECTION>_<KEY>`` variables as ``section.key`` text.

A prefixed variable that names no setting is an error suggesting the setting or variable meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from skillopt_sleep.engine.config_layers import Layer, layer_from_flat
from skillopt_sleep.engine.config_schema import ConfigError, SleepSettings

ENV_PREFIX = "SKILLOPT_SLEEP_"
# Variables with our prefix that are not settings: the state dir (paths.py), the user config file
# (config.user_config_path), the MCP server's project (mcp/workspace.py) and the plugins'
# interpreter (plugins/codex).
_NOT_CONFIG_ENV = (
    "SKILLOPT_SLEEP_HOME",
    "SKILLOPT_SLEEP_CONFIG",
    "SKILLOPT_SLEEP_PROJECT",
    "SKILLOPT_SLEEP_PYTHON",
)


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


def env_layer(environ: Mapping[str, str]) -> Layer:
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
    layer = layer_from_flat(flat, "environment")
    layer.sources = {k: f"env {ENV_PREFIX}{k.replace('.', '_').upper()}" for k in layer.sources}
    return layer
