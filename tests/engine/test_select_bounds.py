"""Tonight's selection on a long history: ``max_tasks`` bounds validation and test replays too,
and whatever the bound or the call budget keeps still validates every family trained tonight."""

from __future__ import annotations

from skillopt_sleep.engine.select import estimated_calls, fit_to_budget, select_tasks
from skillopt_sleep.mine import FamilySummary, MineResult
from skillopt_sleep.records import Check, Task

CHECK = (Check("contains", "Method"),)


def _family(
    name: str, train: int, val: int, test: int, failed: int
) -> tuple[FamilySummary, list[Task]]:
    splits = ["train"] * train + ["val"] * val + ["test"] * test
    tasks = [
        Task(f"{name}-{n}", name, f"{name} request {n}", "", CHECK, split=split)  # type: ignore[arg-type]
        for n, split in enumerate(splits)
    ]
    summary = FamilySummary(
        name, name, len(tasks), tuple(t.intent for t in tasks), {"failed": failed}, {}, "checks"
    )
    return summary, tasks


def _history() -> MineResult:
    """Two families a year of history made: each a few training requests and dozens of later
    ones to validate and test on."""
    first, first_tasks = _family("fa", train=3, val=30, test=20, failed=9)
    second, second_tasks = _family("fb", train=10, val=30, test=20, failed=1)
    return MineResult(tuple(first_tasks + second_tasks), (first, second), "test")


def test_validation_and_test_replays_are_bounded_by_max_tasks() -> None:
    selection = select_tasks(_history(), max_tasks=6, has_judge=False)
    assert [t.family for t in selection.train] == ["fa"] * 3 + ["fb"] * 3
    assert len(selection.val) <= 6 and len(selection.test) <= 6  # were all 60 and 40
    assert {t.family for t in selection.val} == {t.family for t in selection.test} == {"fa", "fb"}


def test_a_budget_trimmed_night_still_validates_each_family_it_trains() -> None:
    selection = select_tasks(_history(), max_tasks=6, has_judge=False)
    budget = estimated_calls(selection, 1, 4) - 10
    trimmed = fit_to_budget(selection, 1, 4, budget)
    assert estimated_calls(trimmed, 1, 4) <= budget and len(trimmed.train) < 6
    trained = {t.family for t in trimmed.train}
    assert trained == {"fa", "fb"}
    assert {t.family for t in trimmed.val} == trained  # the gate was the first family's alone
    assert set(trimmed.families) == trained
