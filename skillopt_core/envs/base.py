"""The environment protocol: what the optimizer needs from a benchmark or task source."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from skillopt_core.backends._protocol import Backend
from skillopt_core.errors import UsageError
from skillopt_core.records import Item, Rollout, Score
from skillopt_core.registry import Registry

SPLIT_ALIASES: Mapping[str, str] = {
    "train": "train",
    "val": "val",
    "valid_seen": "val",
    "selection": "val",
    "test": "test",
    "valid_unseen": "test",
}


def canonical_split(name: str) -> str:
    try:
        return SPLIT_ALIASES[name]
    except KeyError:
        raise UsageError(
            f"unknown split {name!r}; use train, val (valid_seen), test (valid_unseen) or all"
        ) from None


class Environment(Protocol):
    """Items per split, a rollout of one item with a skill on a target backend, and its score."""

    name: str

    def items(self, split: str) -> list[Item]: ...

    def rollout(self, skill: str, item: Item, target: Backend, sample: int = 0) -> Rollout: ...

    def score(self, item: Item, rollout: Rollout) -> Score: ...


EnvironmentFactory = Callable[[Mapping[str, Any]], Environment]

ENVIRONMENTS: Registry[EnvironmentFactory] = Registry("environment")


def environment_factory(name: str) -> EnvironmentFactory:
    """The registered factory for ``name``; an unknown name is a UsageError with a suggestion."""
    from skillopt_core.envs import qa  # noqa: F401  (registers the built-in environment)

    return ENVIRONMENTS.get(name)


def create_environment(name: str, options: Mapping[str, Any]) -> Environment:
    return environment_factory(name)(options)


def items_digest(env: Environment, splits: tuple[str, ...] = ("train", "val", "test")) -> str:
    """A sha256 of every item (id and fields) of ``splits``: the identity of a run's data."""
    digest = hashlib.sha256()
    for split in splits:
        for item in env.items(split):
            row = [split, item.id, dict(item.fields)]
            digest.update(json.dumps(row, sort_keys=True, default=repr).encode("utf-8"))
            digest.update(b"\n")
    return digest.hexdigest()
