"""recall_k: the archived attempts reflection should see next to each training task.

For every training task, the k most similar archived *training* tasks by embedding, reranked so
that an attempt with the opposite outcome in the same family comes first (a failed attempt next
to one that succeeded shows what separates them). Validation and test tasks are never recalled:
they are what the gate measures, and letting them into reflection would leak the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONTRAST_BONUS = 1.0  # same family, opposite outcome: always ahead of mere similarity
SAME_FAMILY_BONUS = 0.25


@dataclass(frozen=True)
class RecallItem:
    task_id: str
    family: str
    outcome: str
    split: str


def _contrasting(a: str, b: str) -> bool:
    return {a, b} == {"failed", "succeeded"}


def recall_k(
    items: Sequence[RecallItem],
    similarity: np.ndarray,
    k: int = 3,
) -> dict[str, tuple[str, ...]]:
    """Task id -> recalled task ids, for every training item; ``similarity`` is items x items."""
    train = np.array([item.split == "train" for item in items], dtype=bool)
    out: dict[str, tuple[str, ...]] = {}
    for i, item in enumerate(items):
        if not train[i] or k <= 0:
            continue
        score = similarity[i].astype(np.float64).copy()
        for j, other in enumerate(items):
            if other.family == item.family:
                score[j] += SAME_FAMILY_BONUS + (
                    CONTRAST_BONUS if _contrasting(item.outcome, other.outcome) else 0.0
                )
        score[~train] = -np.inf
        score[i] = -np.inf
        order = [j for j in np.argsort(-score, kind="stable")[:k] if np.isfinite(score[j])]
        out[item.task_id] = tuple(items[j].task_id for j in order)
    return out
