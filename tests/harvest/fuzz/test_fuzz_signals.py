"""Adversarial timing of the feedback signals: a session of many distinct prompts.

Each prompt was compared with every earlier one to find a retry, O(n^2) set operations: a
crafted or very long session of 6,000 distinct prompts took ~15 s (100,000: hours), in the
nightly harvest. A retry is now looked for among the latest ``RETRY_LOOKBACK`` requests.
"""

from __future__ import annotations

import time

from skillopt_sleep.harvest import signals


def _steps(prompts: list[str]) -> list[tuple[str, str, None, tuple[()]]]:
    return [("user", text, None, ()) for text in prompts]


def test_many_distinct_prompts_are_scanned_in_linear_time() -> None:
    steps = _steps([f"alpha{i} beta{i} gamma{i}" for i in range(6000)])
    start = time.perf_counter()
    found = signals.detect(steps)
    elapsed = time.perf_counter() - start
    assert found == ()
    assert elapsed < 1.0, f"{elapsed:.2f} s"


def test_a_retry_within_the_lookback_is_still_found() -> None:
    filler = [f"alpha{i} beta{i} gamma{i}" for i in range(signals.RETRY_LOOKBACK - 1)]
    steps = _steps(["please fix the login page", *filler, "please fix the login page again"])
    retries = [s for s in signals.detect(steps) if s[0] == signals.RETRY]
    assert retries == [(signals.RETRY, 0, "please fix the login page again")]
