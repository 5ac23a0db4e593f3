"""Choose tonight's tasks within the budget: new and failing families first.

Pure: a :class:`~skillopt_sleep.mine.MineResult` in, a :class:`Selection` out. Validation tasks of
the chosen families gate the edits; when a family set has too few of them, the gate falls back to
the training tasks and says so (the report shows it).

``max_tasks`` bounds every split, not training alone: a first night over a year of history mines
families with hundreds of validation and test requests each, and replaying them all would be
thousands of calls for a 24-task night. Validation and test tasks are taken from the chosen
families in turn, so whatever the bound (or the call budget) keeps still gates and measures each
family trained tonight.

The training bound is shared the same way: each family in priority order gets a task, round after
round, until ``max_tasks`` (:func:`_shares`). Months of history give a daily task dozens of training
requests, and taking a family's tasks whole let it fill every night alone, so a newer task that
failed as often tonight was never trained while the daily one kept coming. The call budget trims
the same way, from the family that holds the most tasks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from itertools import chain, zip_longest
from typing import Literal

from skillopt_core.errors import UsageError
from skillopt_sleep.mine import FamilySummary, MineResult
from skillopt_sleep.mine.recall import LazyRecall
from skillopt_sleep.records import SignalKind, Task
from skillopt_sleep.replay import judgeable


@dataclass(frozen=True)
class Selection:
    train: tuple[Task, ...]
    val: tuple[Task, ...]
    test: tuple[Task, ...]
    families: tuple[str, ...]
    gate_split: Literal["val", "train"]

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
    by_family: dict[str, list[Task]] = {}
    for task in usable:
        by_family.setdefault(task.family, []).append(task)
    order = [f.id for f in sorted(result.families, key=_priority) if f.id in by_family]
    order += sorted(f for f in by_family if f not in order)  # dreamed-only families last
    trainable = {f: [t for t in by_family[f] if t.split == "train"] for f in order}
    shares = _shares([len(trainable[f]) for f in order], max_tasks)
    chosen = [f for f, share in zip(order, shares, strict=True) if share]
    train = [t for f, share in zip(order, shares, strict=True) for t in trainable[f][:share]]
    by_id = {t.id: t for t in usable}
    taken = {t.id for t in train}
    lookup = recalled or result.recalled
    if isinstance(lookup, LazyRecall):
        lookup.prefetch(t.id for t in train)  # scored together: one pass over the others
    for task in list(train):
        for other in lookup.get(task.id, ()):
            candidate = by_id.get(other)
            if (
                candidate
                and candidate.split == "train"
                and other not in taken
                and len(train) < max_tasks
            ):
                train.append(candidate)
                taken.add(other)
    val = _in_turn(chosen, by_family, "val")[:max_tasks]
    test = _in_turn(chosen, by_family, "test")[:max_tasks]
    gate_split: Literal["val", "train"] = "val"
    if len(val) < min_val_tasks:
        gate_split = "train"
        val = list(train)
    return Selection(tuple(train), tuple(val), tuple(test), tuple(chosen), gate_split)


def _shares(sizes: Sequence[int], bound: int) -> list[int]:
    """How many of each family's ``sizes`` training tasks to take, families in priority order:
    one each per round, in order, until ``bound`` tasks are taken or none are left."""
    shares = [0] * len(sizes)
    left = max(0, bound)
    while left:
        open_ = [i for i, size in enumerate(sizes) if shares[i] < size]
        if not open_:
            break
        for i in open_[:left]:
            shares[i] += 1
        left -= min(left, len(open_))
    return shares


def _in_turn(
    families: Sequence[str], by_family: Mapping[str, Sequence[Task]], split: str
) -> list[Task]:
    """The ``split`` tasks of ``families``, one family's next task after another's."""
    each = [[t for t in by_family[f] if t.split == split] for f in families]
    return [t for t in chain.from_iterable(zip_longest(*each)) if t is not None]


def estimated_calls(selection: Selection, samples: int, minibatch: int) -> int:
    """An upper bound on tonight's model calls for ``selection`` (one step, one slow update)."""
    train, val, test = len(selection.train), len(selection.val), len(selection.test)
    reflect = 2 * -(-train // max(1, minibatch))
    return samples * (3 * train + 3 * val + 2 * test) + reflect + 3


def fit_to_budget(
    selection: Selection, samples: int, minibatch: int, max_calls: int, *, spent: int = 0
) -> Selection:
    """Drop training tasks, each from the family holding the most (:func:`_drop_one`), until the
    night's estimate fits what is left of ``max_calls`` after the ``spent`` calls (0 = no limit).

    Raises ``UsageError`` when even one task would not fit, rather than start a night that the
    budget is certain to stop half way.
    """
    left = max_calls - spent
    if max_calls <= 0 or estimated_calls(selection, samples, minibatch) <= left:
        return selection
    train = list(selection.train)
    while len(train) > 1:
        _drop_one(train)
        trimmed = _trimmed(selection, train)
        if estimated_calls(trimmed, samples, minibatch) <= left:
            return trimmed
    smallest = replace(_trimmed(selection, train), test=())
    need = estimated_calls(smallest, samples, minibatch)
    if need <= left:
        return smallest
    raise UsageError(
        f"a call budget of {max_calls} cannot cover even one task tonight: {spent} call(s) went "
        f"to health checks and mining, and one task needs about {need} more",
        hint=f"raise it to at least {need + spent} (--max-calls, or budget.max_calls in the "
        "config), or lower the replays per task (--samples, or night.samples)",
    )


def _drop_one(train: list[Task]) -> None:
    """Remove the last task of the family holding the most (the lowest in priority among
    equals), so a trimmed night still trains every family it can."""
    counts: dict[str, int] = {}
    for task in train:
        counts[task.family] = counts.get(task.family, 0) + 1
    most = max(counts.values())
    family = [f for f in counts if counts[f] == most][-1]
    index = max(i for i, t in enumerate(train) if t.family == family)
    del train[index]


def only_families(selection: Selection, families: AbstractSet[str]) -> Selection:
    """``selection`` restricted to ``families``: their tasks of each split, gated by their own
    validation tasks, or by their training tasks when they have none."""

    def only(tasks: Sequence[Task]) -> tuple[Task, ...]:
        return tuple(t for t in tasks if t.family in families)

    train, val, gate = only(selection.train), only(selection.val), selection.gate_split
    if gate == "train" or not val:
        val, gate = train, "train"
    kept = tuple(f for f in selection.families if f in families)
    return Selection(train, val, only(selection.test), kept, gate)


def _trimmed(selection: Selection, train: Sequence[Task]) -> Selection:
    """``selection`` down to the training tasks ``train``: the families left without one are
    dropped, and as many validation and test tasks are kept (in turn) as training ones."""
    part = only_families(replace(selection, train=tuple(train)), {t.family for t in train})
    return replace(part, val=part.val[: max(1, len(train))], test=part.test[: len(train)])


def without_families(selection: Selection) -> Selection:
    """The ``mining`` ablation: no family detection. Every request is its own task, judged only by
    the feedback on that request itself (a system that does not see recurrence has nothing else),
    and with no siblings to validate on, the gate uses the training tasks."""
    from skillopt_sleep.mine.heuristics import checks_from_feedback

    tasks: list[Task] = []
    for task in (*selection.train, *selection.val, *selection.test):
        own = [
            s.excerpt
            for e in task.evidence
            if e.request == task.intent
            for s in e.signals
            if s.kind == SignalKind.CORRECTION and s.excerpt
        ]
        checks = tuple(checks_from_feedback(own))
        if checks:
            tasks.append(replace(task, family=task.id, checks=checks, split="train"))
    families = tuple(t.family for t in tasks)
    return Selection(tuple(tasks), tuple(tasks), (), families, "train")
