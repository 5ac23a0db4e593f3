"""Judges drawn from corrections in other languages: a usable check or none (failed before)."""

from __future__ import annotations

import re

import pytest

from skillopt_sleep.mine.heuristics import checks_from_feedback
from tests.i18n._set import rows

_OTHER_SCRIPT = re.compile(r"[^\W\d_A-Za-z\u00c0-\u024f]")


def _checks(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.value) for c in checks_from_feedback([text], 500)]


def test_no_correction_of_the_set_gives_a_check_in_another_script() -> None:
    for row in rows("correction"):
        for kind, value in _checks(row["text"]):
            assert not _OTHER_SCRIPT.search(value), (row["text"], kind, value)


@pytest.mark.parametrize(
    ("text", "checks"),
    [
        ("不对，check the session_cookie名称", [("contains", "session_cookie")]),
        ("never use print语句", [("not_contains", "print")]),
        ("错了，add a Testing部分 section", [("section_present", "Testing")]),
        ("like arXiv:2510.04618的格式", [("regex", r"arXiv:\d+\.\d+")]),
        ("No, use the cursor en lugar del offset", [("contains", "cursor")]),
        ("Nein, check the Ressourcenlimits bitte", [("contains", "Ressourcenlimits")]),
    ],
)
def test_an_english_phrase_ends_where_the_other_language_begins(
    text: str, checks: list[tuple[str, str]]
) -> None:
    assert _checks(text) == checks
