"""The environment protocol: what the optimizer needs from a benchmark or task source."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from skillopt_core.backends._protocol import Backend
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
        raise ValueError(
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


def create_environment(name: str, options: Mapping[str, Any]) -> Environment:
    from skillopt_core.envs import qa  # noqa: F401  (registers the built-in environment)

    return ENVIRONMENTS.get(name)(options)
