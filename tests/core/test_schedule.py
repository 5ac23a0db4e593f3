"""The textual learning-rate schedule."""

from __future__ import annotations

import pytest

from skillopt_core.optim.schedule import LRSchedule


def test_defaults_are_the_paper_protocol() -> None:
    schedule = LRSchedule()
    assert (schedule.kind, schedule.max_edits, schedule.min_edits) == ("cosine", 4, 2)


def test_cosine_decays_from_max_to_floor() -> None:
    schedule = LRSchedule("cosine", 4, 2)
    budgets = [schedule.budget(step, 9) for step in range(9)]
    assert budgets[0] == 4
    assert budgets[-1] == 2
    assert budgets == sorted(budgets, reverse=True)
    assert budgets == [4, 4, 4, 3, 3, 3, 2, 2, 2]


def test_linear_decays_evenly() -> None:
    schedule = LRSchedule("linear", 8, 0)
    assert [schedule.budget(step, 5) for step in range(5)] == [8, 6, 4, 2, 0]


def test_constant_is_max() -> None:
    schedule = LRSchedule("constant", 3, 1)
    assert {schedule.budget(step, 10) for step in range(10)} == {3}


@pytest.mark.parametrize("kind", ["linear", "cosine"])
def test_degenerate_and_out_of_range_steps(kind: str) -> None:
    schedule = LRSchedule(kind, 4, 2)  # type: ignore[arg-type]
    assert schedule.budget(0, 1) == 4
    assert schedule.budget(0, 0) == 4
    assert schedule.budget(-3, 10) == 4
    assert schedule.budget(50, 10) == 2


@pytest.mark.parametrize("kind", ["constant", "linear", "cosine"])
def test_budget_stays_within_bounds(kind: str) -> None:
    schedule = LRSchedule(kind, 7, 3)  # type: ignore[arg-type]
    for total in range(1, 30):
        for step in range(total):
            assert 3 <= schedule.budget(step, total) <= 7


def test_invalid_configuration_is_rejected() -> None:
    with pytest.raises(ValueError):
        LRSchedule("step", 4, 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        LRSchedule("cosine", 2, 4)
    with pytest.raises(ValueError):
        LRSchedule("cosine", 2, -1)
