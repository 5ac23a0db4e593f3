"""recall_k: the archived attempts reflection should see next to each training task.

For every training task, the k most similar archived *training* tasks by embedding, reranked so
that an attempt with the opposite outcome in the same family comes first (a failed attempt next
to one that succeeded shows what separates them). Validation and test tasks are never recalled:
they are what the gate measures, and letting them into reflection would leak the answers.

A night asks for the recall of the few tasks it replays, so ``LazyRecall`` scores a task against
the others only when asked: scoring every pair of training tasks up front is quadratic (13,000
training tasks on a first night over a year of history: 170 M exact similarities, hours and
gigabytes), for rows no one reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skillopt_sleep.mine.embed import Embedder
from skillopt_sleep.records import Task

CONTRAST_BONUS = 1.0  # same family, opposite outcome: always ahead of mere similarity
SAME_FAMILY_BONUS = 0.25
SCORE_COLUMNS = 2048  # training tasks a row is scored against per similarity call
_OUTCOME_CODES = {"failed": 1, "succeeded": 2}  # contrasting: one of each


@dataclass(frozen=True)
class RecallItem:
    task_id: str
    family: str
    outcome: str
    split: str


class _Coded:
    """The items as arrays, so a row's bonuses are computed at once."""

    def __init__(self, items: Sequence[RecallItem]) -> None:
        names: dict[str, int] = {}
        self.items = items
        self.family = np.array([names.setdefault(i.family, len(names)) for i in items], np.int64)
        self.outcome = np.array([_OUTCOME_CODES.get(i.outcome, 0) for i in items], np.int64)
        self.train = np.array([i.split == "train" for i in items], dtype=bool)

    def row(self, i: int, similarity: np.ndarray, k: int) -> tuple[str, ...]:
        """Item ``i``'s recall from its similarities to every item."""
        score = similarity.astype(np.float64)  # a copy
        same = self.family == self.family[i]
        contrast = same & (self.outcome * self.outcome[i] == 2)  # failed (1) x succeeded (2)
        score[same] += np.where(
            contrast[same], SAME_FAMILY_BONUS + CONTRAST_BONUS, SAME_FAMILY_BONUS
        )
        score[~self.train] = -np.inf
        score[i] = -np.inf
        order = [j for j in np.argsort(-score, kind="stable")[:k] if np.isfinite(score[j])]
        return tuple(self.items[j].task_id for j in order)


def recall_k(
    items: Sequence[RecallItem],
    similarity: np.ndarray,
    k: int = 3,
) -> dict[str, tuple[str, ...]]:
    """Task id -> recalled task ids, for every training item; ``similarity`` is items x items."""
    if k <= 0:
        return {}
    coded = _Coded(items)
    return {
        item.task_id: coded.row(i, similarity[i], k)
        for i, item in enumerate(items)
        if coded.train[i]
    }


Scores = Callable[[Sequence[int]], np.ndarray]  # item positions -> their rows x all items


class LazyRecall(Mapping[str, tuple[str, ...]]):
    """``recall_k`` of every training item, each row computed when first asked for.

    ``scores(positions)`` gives those items' similarities to every item. ``prefetch`` computes
    several rows in one call (a night's training tasks), which shares the work of scoring."""

    def __init__(self, items: Sequence[RecallItem], scores: Scores, k: int) -> None:
        self._coded = _Coded(items)
        self._scores, self._k = scores, k
        self._position = {item.task_id: i for i, item in enumerate(items) if item.split == "train"}
        self._rows: dict[str, tuple[str, ...]] = {}

    def prefetch(self, task_ids: Iterable[str]) -> None:
        wanted = [t for t in dict.fromkeys(task_ids) if t in self._position and t not in self._rows]
        if not wanted:
            return
        positions = [self._position[t] for t in wanted]
        for task_id, i, similarity in zip(wanted, positions, self._scores(positions), strict=True):
            self._rows[task_id] = self._coded.row(i, similarity, self._k)

    def __getitem__(self, task_id: str) -> tuple[str, ...]:
        if task_id not in self._position:
            raise KeyError(task_id)
        self.prefetch([task_id])
        return self._rows[task_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)


def training_recall(
    tasks: Sequence[Task], rows: Sequence[int], vectors: Any, embedder: Embedder, k: int
) -> Mapping[str, tuple[str, ...]]:
    """recall_k over the training tasks only: the others are never recalled, nor recall. Each
    task's row is scored when it is asked for (``LazyRecall``)."""
    train = [i for i, task in enumerate(tasks) if task.split == "train"]
    if not train or k <= 0:
        return {}
    columns = [rows[i] for i in train]
    items = [
        RecallItem(tasks[i].id, tasks[i].family, _outcome(tasks[i]), tasks[i].split) for i in train
    ]

    def scores(positions: Sequence[int]) -> np.ndarray:
        """Those training tasks against every training task, a block of columns at a time: the
        similarity scores copies of its inputs, and a copy of every one at once would double
        the archive's vectors."""
        wanted = vectors[[columns[p] for p in positions]]
        blocks = [
            embedder.similarity(wanted, vectors[columns[start : start + SCORE_COLUMNS]])
            for start in range(0, len(columns), SCORE_COLUMNS)
        ]
        return np.concatenate(blocks, axis=1)

    return LazyRecall(items, scores, k)


def _outcome(task: Task) -> str:
    own = [e.outcome for e in task.evidence if e.request == task.intent]
    return own[-1] if own else "unknown"
