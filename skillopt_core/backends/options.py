"""The option keys each backend reads, so a misspelt key or role table is an error, not ignored.

Options are a flat mapping shared by both roles, and per-role tables under ``optimizer`` and
``target`` that override it (see :mod:`skillopt_core.backends.runtime`). A backend module declares the keys it reads
with :func:`declare` next to its registration; a backend that declares none (the mock, which
stands in for a real backend under that backend's options; a plugin; a test double) gets any key.
A shared key must be read by at least one role's backend, since one mapping serves two backends
that may differ. Role tables are checked whatever the backends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from skillopt_core.errors import UsageError
from skillopt_core.suggest import did_you_mean

ROLES = ("optimizer", "target")


def where_to_set(*settings: str) -> str:
    """Where a user sets backend options, for a hint: ``--option`` flags for ``skillopt``, the
    ``[backends.options]`` table of the config for ``skillopt-sleep`` (which has no such flag)."""
    flags = " ".join(f"--option {s}" for s in settings)
    return f"`{flags}` for skillopt; under [backends.options] in skillopt-sleep's config"


DEFAULT_TIMEOUT_S = 120.0
"""An API backend's ``timeout`` (seconds for each read of a reply) when the option is not given."""
DEADLINE_PER_TIMEOUT = 10
"""Without a ``deadline`` option a call's deadline is this many ``timeout``s."""

# Read around every backend by the managed layer (runtime, managed, pricing), plus the run's seed,
# which every backend receives and only the mock uses.
COMMON = frozenset(
    {
        "concurrency",
        "max_retries",
        "retry_base_s",
        "retry_cap_s",
        "prices",
        "price_input",
        "price_output",
        "seed",
    }
)
TABLES = frozenset({"env"})  # options whose value is itself a table (a CLI child's environment)

_DECLARED: dict[str, frozenset[str]] = {}


def declare(backend: str, keys: Iterable[str]) -> None:
    """Record the option keys ``backend`` reads (besides :data:`COMMON`)."""
    _DECLARED[backend] = frozenset(keys)


def known_keys(backend: str) -> frozenset[str] | None:
    """The keys ``backend`` accepts, or None when it declared none (anything goes)."""
    keys = _DECLARED.get(backend)
    return None if keys is None else keys | COMMON


def check_roles(options: Mapping[str, Any], where: str = "backends.options") -> None:
    """A table in the shared options must be a role (or a table-valued option such as ``env``)."""
    for key, value in options.items():
        if isinstance(value, Mapping) and key not in ROLES and key not in TABLES:
            hint = did_you_mean(key, ROLES, template="[" + where + ".{}]")
            raise UsageError(
                f"unknown role table [{where}.{key}]{hint}; per-role options go under "
                f"[{where}.optimizer] or [{where}.target]"
            )


def _check_keys(keys: Iterable[str], backends: list[str], where: str) -> None:
    accepted = [known_keys(b) for b in backends]
    if any(k is None for k in accepted):
        return
    valid = sorted(frozenset().union(*(k for k in accepted if k is not None)))
    for key in keys:
        if key not in valid and key not in ROLES:
            raise UsageError(
                f"unknown {where} {key!r} for {' and '.join(sorted(set(backends)))}"
                f"{did_you_mean(key, valid)}; known: {', '.join(valid)}"
            )


def check_options(options: Mapping[str, Any], backends: Mapping[str, str]) -> None:
    """Refuse role tables and keys that no backend of ``backends`` (role -> name) reads."""
    check_roles(options)
    own = {role: options[role] for role in ROLES if isinstance(options.get(role), Mapping)}
    shared = [k for k in options if k not in ROLES]
    if backends:
        _check_keys(shared, list(backends.values()), "option")
    for role, table in own.items():
        if role in backends:
            _check_keys(table, [backends[role]], f"{role} option")


def seconds(value: object, key: str, default: float) -> float:
    """A positive number of seconds from option ``key`` (text from ``--option`` or a config
    value); ``default`` when it is not given."""
    if value is None or value == "":
        return default
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UsageError(f"option {key}={value!r} must be a number of seconds") from None
    if not number > 0:
        raise UsageError(f"option {key} must be a positive number of seconds, not {value!r}")
    return number


def deadline_seconds(options: Mapping[str, Any]) -> float:
    """The ``deadline`` option, ten ``timeout``s unless given: the longest one reply may take to
    arrive (:mod:`.api._guard`), and the latest a server's ``Retry-After`` may end, counted from
    the start of the call (:mod:`.retry`)."""
    timeout = seconds(options.get("timeout"), "timeout", DEFAULT_TIMEOUT_S)
    return seconds(options.get("deadline"), "deadline", DEADLINE_PER_TIMEOUT * timeout)
