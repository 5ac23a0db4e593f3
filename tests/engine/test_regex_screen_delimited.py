"""The regex screen accepts a repeat nested in a repeat when each pass opens with a character
the inner repeats cannot match (``v\\d+(\\.\\d+)+``: a version number, the shape a model writes
for "names the version"); it was refused like ``(a+)+``, so such a check judged nothing."""

from __future__ import annotations

import pytest

from skillopt_sleep.records import Check
from skillopt_sleep.replay import run_check
from skillopt_sleep.replay.patterns import regex_problem


@pytest.mark.parametrize(
    "pattern",
    [
        r"v\d+(\.\d+)+",
        r"(,\s*[a-z]+)*",
        r"(/[\w.-]+)+\.py",
        r"(\.[^.]+)+$",
        r"((\.\d+))+",
        r"(?i)(-[a-w]+)+",
    ],
)
def test_a_repeat_split_by_its_opening_character_is_accepted(pattern: str) -> None:
    assert regex_problem(pattern) == ""


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+",
        r"(a\w+)+",  # \w matches the opening a: passes can split a run of a's many ways
        r"(?i)(X[a-z]+)+",  # case-blind: [a-z] matches X
        r"(-.+)+",
        r"(?s)(x.+)+",
        r"(\.\d+\.?)+",  # an inner repeat that matches the opening character
        r"(\.(a+)+)+",  # nested inside the delimited body: still refused
        r"(\.[^a]+)+",
        r"(\.\W+)+",
        r"(\s*\w+)+",
    ],
)
def test_a_repeat_passes_could_split_many_ways_is_still_refused(pattern: str) -> None:
    assert "nests a repeat" in regex_problem(pattern)


def test_a_version_check_judges_answers() -> None:
    check = Check("regex", r"v\d+(\.\d+)+")
    assert run_check(check, "upgraded to v2.31.0 today").passed
    assert not run_check(check, "upgraded to the latest").passed
    assert not run_check(check, "upgraded to the latest").skipped
