"""Ablations: each removes one mechanism of the method through the engine's own configuration.

Every switch is an ordinary engine setting (defaults keep the method whole), so an ablated run
goes through exactly the pipeline a user's night does, minus one thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ABLATIONS: Mapping[str, Mapping[str, Any]] = {
    "gate": {"train.gate": False},  # every candidate is accepted
    "budget": {"train.lr_max": 64, "train.lr_min": 64},  # no textual learning rate
    "buffer": {"train.buffer": False},  # rejected edits are forgotten between nights
    "credit": {"train.credit": False},  # a rejected bundle's edits share its delta
    "slow-update": {"train.slow_update": False, "train.meta": False},
    "recall": {"mine.recall_k": 0},
    "mining": {"mine.families": False},  # every request replayed as its own task
}
"""Engine config overrides per ablation name (``--ablate NAME``)."""

ABOUT: Mapping[str, str] = {
    "gate": "every candidate edit is accepted, however it scores",
    "budget": "no textual learning rate, up to 64 edits a step",
    "buffer": "rejected edits are forgotten between nights",
    "credit": "a rejected bundle's edits share its delta",
    "slow-update": "no end-of-epoch slow update or meta notes",
    "recall": "reflection sees no similar archived attempts",
    "mining": "no task families, every request is its own task",
}
"""What each ablation removes, in a phrase (for ``--help``)."""


def overrides_for(names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name not in ABLATIONS:
            raise ValueError(f"unknown ablation {name!r}; choose from {', '.join(ABLATIONS)}")
        out.update(ABLATIONS[name])
    return out
