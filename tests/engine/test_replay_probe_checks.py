"""Probe: rule checks built from hostile text (a user's, a model's) judge answers soundly and fast."""

from __future__ import annotations

import threading
import time
import unicodedata

import pytest

from skillopt_sleep.records import Check
from skillopt_sleep.replay import patterns, run_check, run_checks
from skillopt_sleep.replay.checks import usable_checks


def test_a_catastrophic_pattern_is_refused_without_running_it() -> None:
    started = time.perf_counter()
    result = run_check(Check("regex", r"^(a+)+$"), "a" * 24 + "!")
    assert time.perf_counter() - started < 0.2
    assert result.skipped and "nests a repeat" in result.reason


def test_a_search_that_runs_too_long_fails_that_answer_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It was refused for the rest of the process once one answer ran out of time, so a correct
    answer scored before the slow one passed and the same answer scored after it did not (the
    verdicts depended on answer order, thread count and earlier nights)."""
    monkeypatch.setattr(patterns, "TIME_LIMIT_S", 0.3)
    check = Check("not_regex", r"\s*\s*\s*\s*probe-slow")  # polynomial, passes the shape screen
    started = time.perf_counter()
    first = run_check(check, " " * 5000 + "y")
    again = run_check(check, "short")
    assert time.perf_counter() - started < 1.5
    assert not first.passed and not first.skipped and "took over" in first.reason
    assert again.passed and not again.skipped  # judged on its own
    assert run_check(Check("regex", r"arXiv:\d+"), "see arXiv:2510").passed  # the helper is back


def test_a_pattern_that_parses_but_does_not_compile_is_refused() -> None:
    result = run_check(Check("regex", r"(?<=password\s*=\s*)\S+"), "password = hunter2")
    assert result.skipped and "invalid pattern" in result.reason


def test_a_helper_killed_from_outside_is_started_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C at the terminal killed the helper (it shared the command's process group), and
    the pattern was then refused as if it had run out of time."""
    assert patterns.bounded_search("probe-k", "probe-k") == (True, "")
    process = patterns._worker._process
    assert process is not None
    process.kill()
    process.wait()
    assert patterns.bounded_search("probe-k", "xx probe-k") == (True, "")


def test_without_a_helper_a_screened_pattern_is_searched_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    patterns._worker.stop()
    monkeypatch.setattr(patterns.sys, "executable", "")  # no interpreter to start
    assert patterns.bounded_search(r"v\d+", "release v12") == (True, "")


@pytest.mark.parametrize(
    ("value", "answer"),
    [
        ("İstanbul", "we ship from istanbul"),  # Turkish dotted capital I
        ("ISTANBUL", "ıstanbul office"),  # Turkish dotless i
        ("Straße", "STRASSE 5"),  # German sharp s
        ("file", "the ﬁle is here"),  # ligature
        ("café", unicodedata.normalize("NFD", "the café")),  # NFC vs NFD
        ("pytest", "ran ｐｙｔｅｓｔ"),  # full-width letters
        ("pytest", "ran py\u200dtest"),  # zero-width joiner
        ("don't", "I don’t retry"),  # smart vs straight quote
        ("session cookie", "the session\r\n  cookie"),  # CRLF and runs of spaces
        ("pytest ", "ran pytest."),  # trailing whitespace in the check
    ],
)
def test_text_checks_compare_text_not_its_encoding(value: str, answer: str) -> None:
    assert run_check(Check("contains", value), answer).passed
    assert not run_check(Check("not_contains", value), answer).passed


def test_a_regex_check_reads_crlf_nfd_and_invisible_characters_as_text() -> None:
    assert run_check(Check("regex", r"(?m)^v\d+\.\d+$"), "done\r\nv1.2\r\n").passed
    assert run_check(Check("regex", "café"), unicodedata.normalize("NFD", "café")).passed
    assert not run_check(Check("not_regex", r"\bprint\("), "pri\u200bnt(x)").passed


@pytest.mark.parametrize(
    "check",
    [
        Check("contains", ""),
        Check("contains", "   "),
        Check("not_contains", " \t"),
        Check("section_present", ""),
        Check("tool_called", "\u200b"),
        Check("regex", ""),
        Check("not_regex", " "),
        Check("max_chars", "0"),
        Check("max_chars", "²"),  # isdigit() but not int()
        Check("contains", "[REDACTED:github-token]"),
        Check("not_contains", "token [REDACTED:aws-key]"),
        Check("regex", r"\[REDACTED:github\-token\]"),
    ],
)
def test_an_empty_or_redacted_check_judges_nothing(check: Check) -> None:
    for answer in ("", "anything at all [REDACTED:github-token]", "## A\nx"):
        assert run_check(check, answer).skipped
    assert usable_checks([check]) == ()


def test_checks_no_answer_can_pass_together_are_both_dropped_in_any_order() -> None:
    wanted, banned = Check("contains", "Session Cookie"), Check("not_contains", "cookie")
    section, other = Check("section_present", "Retries"), Check("not_contains", "retries")
    keep = Check("contains", "pytest")
    forward = [wanted, banned, keep, section, other]
    for checks in (forward, forward[::-1]):
        assert usable_checks(checks) == (keep,)
        results = run_checks(checks, "## Retries\nthe session cookie, via pytest")
        assert [r.skipped for r in results] == [c is not keep for c in checks]
        assert all(r.passed for r in results)


@pytest.mark.parametrize("answer", [None, 42, ["x"], {"x": 1}])
def test_a_reply_that_is_not_text_is_no_answer(answer: object) -> None:
    assert not run_check(Check("contains", "x"), answer).passed
    assert run_check(Check("not_contains", "x"), answer).passed
    assert run_check(Check("contains", "é"), "é".encode()).passed


def test_headings_are_read_in_linear_time_and_not_inside_code() -> None:
    started = time.perf_counter()
    assert not run_check(Check("section_present", "y"), "**" + "*" * 20_000 + "x").passed
    assert time.perf_counter() - started < 0.5
    in_code = "Run this:\n```bash\n# Testing the install\npip install .\n```\n"
    assert not run_check(Check("section_present", "Testing"), in_code).passed
    wrapped = "```markdown\n## Testing\nran pytest\n```"
    assert run_check(Check("section_present", "Testing"), wrapped).passed
    assert run_check(Check("section_present", "Testing"), "**Testing:**\nran it").passed


def test_a_ten_megabyte_reply_is_judged_quickly() -> None:
    answer = ("word " * 2_000_000) + "\n## Tail\n"
    checks = [
        Check("contains", "missing"),
        Check("not_contains", "word"),
        Check("regex", r"(?m)^\s*v\d+\.\d+\s*$"),
        Check("section_present", "Tail"),
        Check("max_chars", "100"),
    ]
    started = time.perf_counter()
    results = run_checks(checks, answer)
    assert time.perf_counter() - started < 5
    assert [r.passed for r in results] == [False, False, False, True, False]


class _Stopped(Exception):
    pass


def test_a_search_interrupted_mid_way_does_not_answer_the_next_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A SIGTERM or Ctrl-C (raised as an exception) landing once a slow search was sent left
    its reply in the helper's pipe, and the next search read it as its own."""
    monkeypatch.setattr(patterns, "TIME_LIMIT_S", 10.0)
    assert patterns.bounded_search("probe-warm", "probe-warm") == (True, "")  # helper running
    start = threading.Thread.start

    def stopped(thread: threading.Thread) -> None:
        monkeypatch.setattr(threading.Thread, "start", start)
        raise _Stopped  # as a signal handler would, right after the request was written

    monkeypatch.setattr(threading.Thread, "start", stopped)
    with pytest.raises(_Stopped):  # slow (a few tenths of a second), then a match
        patterns.bounded_search(r"(?:\s*\s*\s*probe-y|z)", " " * 250 + "z")
    assert patterns.bounded_search("probe-absent", "abc") == (False, "")
