"""The edit screen passes ordinary procedure lines in other scripts (failed before the fix)."""

from __future__ import annotations

import pytest

from skillopt_core.skill.screen import screen_text


@pytest.mark.parametrize(
    "line",
    [
        "پیش از انتشار، تست‌ها را اجرا کن و می‌خواهم خروجی را بررسی کنی",  # Persian ZWNJ
        "रिलीज़ से पहले क्\u200dष टेस्ट चलाओ",  # Devanagari ZWJ (half form)
        "ടെസ്റ്റുകൾ ഓടിക്കുക: ന്\u200d",  # Malayalam chillu
        "运行 pytest -q 然后更新 CHANGELOG.md",
        "קודם הרץ את pytest",
    ],
)
def test_joiners_that_spell_a_word_pass(line: str) -> None:
    assert screen_text(line) == ()


@pytest.mark.parametrize(
    "line",
    ["pass\u200cword", "a\u200db", "می\u200c\u200c\u200dخواهم", "é\u200cx", "تست\u200c\u200ex"],
)
def test_joiners_between_latin_letters_or_in_runs_are_refused(line: str) -> None:
    assert [f.kind for f in screen_text(line)] == ["invisible-characters"]
