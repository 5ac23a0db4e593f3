"""Typed, immutable records passed between optimizer stages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from skillopt_core.backends._protocol import EMPTY, Usage
from skillopt_core.errors import UsageError


@dataclass(frozen=True)
class Item:
    """One task an environment can roll out: an id plus environment-specific fields."""

    id: str
    fields: Mapping[str, Any] = field(default_factory=lambda: EMPTY)

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class Rollout:
    """What the target produced for one item with one skill."""

    item_id: str
    response: str
    trajectory: tuple[Mapping[str, Any], ...] = ()
    usage: Usage = field(default_factory=Usage)
    sample: int = 0


@dataclass(frozen=True)
class Score:
    hard: float  # 0.0 or 1.0
    soft: float  # in [0, 1]
    reason: str = ""

    def __post_init__(self) -> None:
        if self.hard not in (0.0, 1.0):
            raise ValueError(f"hard score must be 0 or 1, got {self.hard}")
        if not 0.0 <= self.soft <= 1.0:
            raise ValueError(f"soft score must be within [0, 1], got {self.soft}")


@dataclass(frozen=True)
class ScoredRollout:
    item: Item
    rollout: Rollout
    score: Score


class EditOp(str, Enum):
    ADD = "add"
    DELETE = "delete"
    REPLACE = "replace"


@dataclass(frozen=True)
class Edit:
    """A bounded change to the skill document.

    ``add``: insert ``content`` after ``anchor`` (or at the end of the editable region when the
    anchor is empty). ``delete``: remove ``anchor``. ``replace``: swap ``anchor`` for ``content``.
    ``support`` counts how many reflections proposed it; ``source`` is "failure" or "success".
    """

    op: EditOp
    anchor: str = ""
    content: str = ""
    rationale: str = ""
    support: int = 1
    source: str = "failure"

    def key(self) -> tuple[str, str, str]:
        """Identity used by the rejected-edit buffer and de-duplication (whitespace-folded)."""
        return (self.op.value, " ".join(self.anchor.split()), " ".join(self.content.split()))

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op.value,
            "anchor": self.anchor,
            "content": self.content,
            "rationale": self.rationale,
            "support": self.support,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Edit:
        return cls(
            op=EditOp(str(data["op"]).lower()),
            anchor=str(data.get("anchor") or ""),
            content=str(data.get("content") or ""),
            rationale=str(data.get("rationale") or ""),
            support=int(data.get("support") or 1),
            source=str(data.get("source") or "failure"),
        )


@dataclass(frozen=True)
class EditOutcome:
    edit: Edit
    applied: bool
    reason: str = ""


@dataclass(frozen=True)
class ApplyReport:
    text: str
    outcomes: tuple[EditOutcome, ...]

    @property
    def applied(self) -> tuple[Edit, ...]:
        return tuple(o.edit for o in self.outcomes if o.applied)


@dataclass(frozen=True)
class EvalResult:
    """Scores of one skill on one split; ``per_item`` maps item id -> mean score over samples."""

    skill_hash: str
    split: str
    hard: float
    soft: float
    per_item_hard: Mapping[str, float] = field(default_factory=lambda: EMPTY)
    per_item_soft: Mapping[str, float] = field(default_factory=lambda: EMPTY)
    n: int = 0

    def metric(self, name: str, mixed_weight: float = 0.5) -> float:
        if name == "hard":
            return self.hard
        if name == "soft":
            return self.soft
        if name == "mixed":
            return (1 - mixed_weight) * self.hard + mixed_weight * self.soft
        raise UsageError(f"unknown gate metric {name!r}; use hard, soft or mixed")


@dataclass(frozen=True)
class Decision:
    accepted: bool
    metric: str
    current: float
    candidate: float
    reason: str
    per_item_delta: Mapping[str, float] = field(default_factory=lambda: EMPTY)
