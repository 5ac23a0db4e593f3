"""``displayable``: control and bidi-format characters shown as escapes, everything else kept."""

from __future__ import annotations

from skillopt_sleep._display import displayable, stripped
from skillopt_sleep.cli._options import escape


def test_controls_and_bidi_formats_become_escapes() -> None:
    assert displayable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert displayable("x\u202ey\u2066z\u2069") == "x\\u202ey\\u2066z\\u2069"
    assert displayable("nul\x00 del\x7f c1\x9b") == "nul\\x00 del\\x7f c1\\x9b"
    assert displayable("over\rwrite") == "overwrite"


def test_ordinary_text_is_untouched() -> None:
    text = "tabs\tand\nnewlines, ünïcødé, 👩\u200d💻 emoji, 日本語, [REDACTED:github-token]"
    assert displayable(text) == text


def test_terminal_text_is_escaped_for_rich_and_made_displayable() -> None:
    assert escape("[/INST] \x1b]0;t\x07") == "\\[/INST] \\x1b]0;t\\x07"


def test_a_lone_surrogate_and_the_arabic_letter_mark_become_escapes() -> None:
    """A lone surrogate cannot be written as UTF-8 (a terminal line or a report holding one
    failed); U+061C is a bidi mark like U+200F."""
    shown = displayable("half \ud83d an emoji, \u061cmark")
    assert shown == "half \\ud83d an emoji, \\u061cmark"
    shown.encode("utf-8")


def test_characters_that_render_as_nothing_are_shown() -> None:
    """Zero-width spaces and tag characters hid text in a report's edit list (a refused edit's
    hidden instruction stayed hidden); emoji keep their joiners."""
    hidden = "run the tests\u200b\u2060\U000e0069\U000e0067\u00ad"
    shown = displayable(hidden)
    assert shown == "run the tests\\u200b\\u2060\\U000e0069\\U000e0067\\u00ad"
    assert displayable("👨\u200d👩\u200d👧 ❤\ufe0f") == "👨\u200d👩\u200d👧 ❤\ufe0f"
    assert stripped(hidden) == "run the tests"
