"""Recurrence: copies across harnesses are one occasion; 'again…' turns are feedback, not requests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from skillopt_sleep.mine.feedback import classify_followup, is_amendment, is_followup
from skillopt_sleep.mine.occasions import count_occasions
from skillopt_sleep.records import SignalKind

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=timezone.utc)


def test_copies_within_the_window_are_one_occasion() -> None:
    copies = [("h1", T0), ("h1", T0 + timedelta(seconds=20)), ("h1", T0 + timedelta(minutes=1))]
    assert count_occasions(copies) == 1
    assert count_occasions([*copies, ("h1", T0 + timedelta(days=1))]) == 2


def test_a_different_wording_is_a_new_occasion() -> None:
    assert count_occasions([("h1", T0), ("h2", T0 + timedelta(seconds=15))]) == 2


def test_order_of_attempts_does_not_matter() -> None:
    attempts = [("h1", T0 + timedelta(minutes=m)) for m in (0, 4, 12, 13, 30)]
    assert count_occasions(attempts) == count_occasions(reversed(attempts)) == 3


@pytest.mark.parametrize(
    "text",
    [
        "again please use Added / Changed / Fixed headings",
        "please use the Keep a Changelog headings again",
        "still failing",
        "same error again",
        "as I said, put the id on its own line",
    ],
)
def test_repeated_corrections_are_feedback(text: str) -> None:
    assert classify_followup(text) is SignalKind.CORRECTION


@pytest.mark.parametrize(
    "text",
    ["summarize arXiv paper 2605.23904", "add a --json flag to the export command"],
)
def test_requests_are_not_feedback(text: str) -> None:
    assert classify_followup(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "also update the docs",
        "and also add a test for it",
        "Additionally, bump the version",
        "oh and update the changelog",
        "update the README too",
        "run the linter as well",
    ],
)
def test_amendments_belong_to_the_request_before_them(text: str) -> None:
    assert is_amendment(text) and is_followup(text)
    assert classify_followup(text) is None  # no verdict on the attempt: not a correction


@pytest.mark.parametrize(
    "text",
    [
        "summarize arXiv paper 2605.23904",
        "add a --json flag to the export command",
        "also known as the strangler pattern: explain how to migrate our monolith with it, step "
        "by step, with the risks of each step and how we would roll back each of them safely",
        "write the release notes for 2.3",
    ],
)
def test_requests_are_not_amendments(text: str) -> None:
    assert not is_amendment(text)
