"""Rule checks on replayed answers, and the guidance their failures name."""

from __future__ import annotations

import pytest

from skillopt_sleep.records import Check
from skillopt_sleep.replay import guidance_for, run_check


@pytest.mark.parametrize(
    ("check", "good", "bad"),
    [
        (Check("contains", "session cookie"), "reset the Session Cookie name", "fixed it"),
        (Check("not_contains", "just add a"), "use a fixture", "just add a sleep"),
        (
            Check("regex", r"(?m)^\s*arXiv:\d+\.\d+\s*$"),
            "summary\narXiv:2510.04618\n",
            "id 2510.04618",
        ),
        (Check("section_present", "Testing"), "## Testing\nran it", "no headings here"),
        (Check("max_chars", "20"), "short", "x" * 21),
        (Check("tool_called", "pytest"), "I ran pytest", "looked at it"),
    ],
)
def test_each_kind_passes_and_fails(check: Check, good: str, bad: str) -> None:
    assert run_check(check, good).passed
    failed = run_check(check, bad)
    assert not failed.passed and f"[needs: {guidance_for(check)}]" in failed.reason


def test_an_invalid_pattern_is_skipped_not_fatal() -> None:
    result = run_check(Check("regex", "(unclosed"), "anything")
    assert result.passed and "invalid pattern" in result.reason
