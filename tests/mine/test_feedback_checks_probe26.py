"""Checks drawn from corrections judge what the user asked for: a masked span (a redaction
placeholder) left the article or verb before it as the check (``contains 'the'``, a
``not_contains 'use'`` that fails most answers), and full-width letters were not read as
letters; a model-written check that can judge no answer fairly is dropped."""

from __future__ import annotations

import pytest

from skillopt_sleep.mine.heuristics import checks_from_feedback
from skillopt_sleep.mine.synth import _valid_check


def _checks(*corrections: str) -> list[tuple[str, str]]:
    return [(c.kind, c.value) for c in checks_from_feedback(corrections)]


@pytest.mark.parametrize(
    "correction",
    ["use the [REDACTED:github-token] token", "don't use [REDACTED:aws-access-key-id] here"],
)
def test_a_masked_span_names_no_check(correction: str) -> None:
    assert _checks(correction) == []


def test_full_width_letters_are_letters() -> None:
    assert _checks("use the ＳＥＳＳＩＯＮ cookie") == [("contains", "SESSION cookie")]


def test_corrections_that_disagree_stay_visible_to_the_coherence_check() -> None:
    """They are the miner's sign that a family merged two tasks (``mine/coherence.py``)."""
    assert _checks("check the cache", "don't use the cache") == [
        ("contains", "cache"),
        ("not_contains", "cache"),
    ]
    assert _checks("never use print") == [("not_contains", "print")]


@pytest.mark.parametrize(
    "raw",
    [
        {"kind": "regex", "value": "^(a+)+$"},
        {"kind": "contains", "value": "[REDACTED:github-token]"},
        {"kind": "max_chars", "value": "0"},
    ],
)
def test_a_model_written_check_that_can_judge_nothing_fairly_is_dropped(raw: dict) -> None:
    assert _valid_check(raw) is None
