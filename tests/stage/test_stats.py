"""The paired bootstrap and the verdict: known cases, determinism, edge cases, invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_sleep.stage.stats import MIN_TASKS, paired_bootstrap, verdict


def test_no_tasks_is_all_zero() -> None:
    assert paired_bootstrap([], []) == (0.0, 0.0, 0.0)


def test_one_task_collapses_onto_its_difference() -> None:
    assert paired_bootstrap([0.0], [1.0]) == (1.0, 1.0, 1.0)


def test_identical_differences_have_no_spread() -> None:
    assert paired_bootstrap([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]) == (1.0, 1.0, 1.0)
    assert paired_bootstrap([1, 0, 1], [1, 0, 1]) == (0.0, 0.0, 0.0)


def test_two_tasks_known_interval() -> None:
    # Differences {0, 1}: resampled means are 0, 0.5 or 1 with probability 1/4, 1/2, 1/4, so
    # the 2.5th and 97.5th percentiles of 2000 resamples are the extremes.
    mean, lo, hi = paired_bootstrap([0.0, 0.0], [0.0, 1.0])
    assert (mean, lo, hi) == (0.5, 0.0, 1.0)


def test_mean_is_the_mean_of_after_minus_before() -> None:
    before = [0.0, 1.0, 0.5, 0.0, 1.0, 0.0]
    after = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    mean, lo, hi = paired_bootstrap(before, after)
    assert mean == pytest.approx(np.mean(np.subtract(after, before)))
    assert lo <= mean <= hi


def test_clear_gain_on_many_tasks_is_better() -> None:
    before = [0.0] * 20 + [1.0] * 5
    after = [1.0] * 18 + [0.0] * 2 + [1.0] * 5
    n = len(before)
    _, lo, hi = paired_bootstrap(before, after)
    assert lo > 0
    assert verdict(n, lo, hi) == "better"


def test_clear_loss_is_worse_and_noise_is_no_change() -> None:
    mean, lo, hi = paired_bootstrap([1.0] * 12, [0.0] * 10 + [1.0] * 2)
    assert hi < 0
    assert verdict(12, lo, hi) == "worse"
    mean, lo, hi = paired_bootstrap([0.0, 1.0] * 10, [1.0, 0.0] * 10)
    assert mean == 0.0 and lo < 0 < hi
    assert verdict(20, lo, hi) == "no measurable change"


def test_deterministic_for_a_seed_and_sensitive_to_it() -> None:
    before = [0.0, 1.0, 0.0, 0.5, 1.0, 0.0, 0.25, 1.0]
    after = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.75, 1.0]
    first = paired_bootstrap(before, after, seed=7)
    assert paired_bootstrap(before, after, seed=7) == first
    assert paired_bootstrap(tuple(before), np.array(after), seed=7) == first
    # Irregular soft scores, so different resamples give different percentiles.
    soft_before = [0.11, 0.52, 0.37, 0.93, 0.05, 0.61, 0.28, 0.74, 0.46, 0.19]
    soft_after = [0.35, 0.49, 0.81, 0.97, 0.44, 0.58, 0.66, 0.71, 0.90, 0.23]
    others = {paired_bootstrap(soft_before, soft_after, seed=s)[1:] for s in range(5)}
    assert len(others) > 1  # the seed does drive the resampling


def test_more_confidence_is_a_wider_interval() -> None:
    before = [0.0, 1.0, 0.0, 0.5, 1.0, 0.0, 0.25, 1.0, 0.0, 0.0]
    after = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.75, 1.0, 1.0, 0.0]
    _, lo80, hi80 = paired_bootstrap(before, after, confidence=0.8)
    _, lo99, hi99 = paired_bootstrap(before, after, confidence=0.99)
    assert lo99 <= lo80 and hi80 <= hi99


@pytest.mark.parametrize(
    ("before", "after", "kwargs", "message"),
    [
        ([0.0, 1.0], [1.0], {}, "differ in length"),
        ([0.0], [1.0], {"resamples": 0}, "resamples"),
        ([0.0], [1.0], {"confidence": 1.0}, "confidence"),
        ([0.0, math.nan], [1.0, 1.0], {}, "finite"),
        ([0.0, 1.0], [math.inf, 1.0], {}, "finite"),
    ],
)
def test_bad_input_is_an_error(
    before: list[float], after: list[float], kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(before, after, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("n", "lo", "hi", "expected"),
    [
        (0, 0.0, 0.0, "too few tasks to tell"),
        (2, 0.5, 1.0, "too few tasks to tell"),  # a clear gain on two tasks is still too few
        (2, -1.0, -0.5, "too few tasks to tell"),
        (MIN_TASKS, 0.01, 0.3, "better"),
        (50, -0.3, -0.01, "worse"),
        (50, -0.1, 0.2, "no measurable change"),
        (50, 0.0, 0.2, "no measurable change"),  # touching zero is not "better"
        (50, -0.2, 0.0, "no measurable change"),
        (50, 0.0, 0.0, "no measurable change"),
        (50, math.nan, math.nan, "too few tasks to tell"),
    ],
)
def test_verdict(n: int, lo: float, hi: float, expected: str) -> None:
    assert verdict(n, lo, hi) == expected


scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(st.tuples(scores, scores), min_size=1, max_size=30))
def test_interval_holds_the_mean_and_stays_within_the_differences(
    pairs: list[tuple[float, float]],
) -> None:
    before = [b for b, _ in pairs]
    after = [a for _, a in pairs]
    deltas = [a - b for b, a in pairs]
    mean, lo, hi = paired_bootstrap(before, after, resamples=200)
    assert min(deltas) - 1e-9 <= lo <= mean <= hi <= max(deltas) + 1e-9
