"""Choose tonight's tasks within the budget: new and failing families first.

Pure: a :class:`~skillopt_sleep.mine.MineResult` in, a :class:`Selection` out. Validation tasks of
the chosen families gate the edits; when a family set has too few of them, the gate falls back to
the training tasks and says so (the report shows it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from skillopt_sleep.mine import FamilySummary, MineResult
from skillopt_sleep.records import Task
from skillopt_sleep.replay import judgeable


@dataclass(frozen=True)
class Selection:
    train: tuple[Task, ...]
    val: tuple[Task, ...]
    test: tuple[Task, ...]
    families: tuple[str, ...]
    gate_split: Literal["val", "train"]
    unjudgeable: int  # tasks left out because nothing could score them

    @property
    def empty(self) -> bool:
        return not self.train


def _priority(family: FamilySummary) -> tuple[int, int, int, str]:
    failed = family.outcomes.get("failed", 0)
    return (-int(family.new_tonight > 0), -failed, -family.size, family.id)


def select_tasks(
    result: MineResult,
    *,
    max_tasks: int,
    has_judge: bool,
    min_val_tasks: int = 2,
    recalled: Mapping[str, Sequence[str]] | None = None,
) -> Selection:
    usable = [t for t in result.tasks if judgeable(t, has_judge)]
    unjudgeable = len(result.tasks) - len(usable)
    by_family: dict[str, list[Task]] = {}
    for task in usable:
        by_family.setdefault(task.family, []).append(task)
    order = [f.id for f in sorted(result.families, key=_priority) if f.id in by_family]
    order += sorted(f for f in by_family if f not in order)  # dreamed-only families last
    train: list[Task] = []
    chosen: list[str] = []
    for family in order:
        tasks = [t for t in by_family[family] if t.split == "train"]
        if not tasks or len(train) >= max_tasks:
            continue
        chosen.append(family)
        train.extend(tasks[: max_tasks - len(train)])
    by_id = {t.id: t for t in usable}
    taken = {t.id for t in train}
    for task in list(train):
        for other in (recalled or result.recalled).get(task.id, ()):
            candidate = by_id.get(other)
            if (
                candidate
                and candidate.split == "train"
                and other not in taken
                and len(train) < max_tasks
            ):
                train.append(candidate)
                taken.add(other)
    val = [t for f in chosen for t in by_family[f] if t.split == "val"]
    test = [t for f in chosen for t in by_family[f] if t.split == "test"]
    gate_split: Literal["val", "train"] = "val"
    if len(val) < min_val_tasks:
        gate_split = "train"
        val = list(train)
    return Selection(tuple(train), tuple(val), tuple(test), tuple(chosen), gate_split, unjudgeable)
