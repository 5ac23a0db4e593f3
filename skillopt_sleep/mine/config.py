"""Miner settings and result records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillopt_sleep.mine.splits import SplitPolicy
from skillopt_sleep.records import Check, Task


@dataclass(frozen=True)
class MineConfig:
    embedder: str = "auto"  # auto | mpnet | minilm-numpy | minilm | static | tfidf | jaccard
    model: str = ""  # a local model directory (or cached model name) for minilm
    threshold: float | None = (
        None  # similarity to join a family; None = the embedder's tuned default
    )
    scale_k: int = 0  # local scaling by the k-th neighbour; 0 = off, the default (see cluster.py)
    min_family_size: int = 2  # occasions a family needs before it is replayed (see occasions.py)
    confirm_budget: int = 8  # optimizer calls a night may spend checking families (confirm.py)
    include_one_offs: bool = False
    splits: SplitPolicy = field(default_factory=SplitPolicy)
    recall_k: int = 3
    dream_rollouts: int = 1  # K: the replay stage runs each task K times
    dream_factor: int = 0  # N: synthetic paraphrases per training task
    night: str = ""  # label of this night (default: today's UTC date)


@dataclass(frozen=True)
class FamilySummary:
    id: str
    representative: str
    size: int  # occurrences (attempts) across all nights
    requests: tuple[str, ...]  # distinct request texts, oldest first
    outcomes: Mapping[str, int]
    splits: Mapping[str, int]
    judged_by: str
    checks: tuple[Check, ...] = ()
    new_tonight: int = 0  # tonight's attempts at it (the unit of ``size``)


@dataclass(frozen=True)
class MineResult:
    tasks: tuple[Task, ...]
    families: tuple[FamilySummary, ...]
    embedder_name: str
    stats: Mapping[str, Any] = field(default_factory=dict)
    recalled: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    dream_rollouts: int = 1

    def split(self, name: str) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks if t.split == name)
