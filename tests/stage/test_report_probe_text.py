"""Text no UTF-8 file can hold: a lone surrogate (half an emoji cut by a harness that counts
UTF-16 units, or a model's ``"\\ud83d"``) is shown as an escape, so staging can write the
reports instead of failing after the night's every model call."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skillopt_sleep.stage.report import render_families, render_html, render_markdown, with_note
from tests.stage.reports import DIFF, staged_night

HALF = "cut emoji \ud83d here"


def _night():  # type: ignore[no-untyped-def]
    night = staged_night()
    edit = replace(night.edits[0], content=HALF, rationale=HALF, anchor=HALF)
    family = replace(night.families[0], id=HALF, examples=(HALF,), checks=(f"contains: {HALF}",))
    return replace(night, edits=(edit,), families=(family,), message=HALF)


@pytest.mark.parametrize(
    "render",
    [
        lambda r: render_markdown(r, DIFF + f"+{HALF}\n"),
        lambda r: render_html(r, DIFF + f"+{HALF}\n"),
        render_families,
        lambda r: with_note("body", "md", HALF),
        lambda r: with_note("<main></main>", "html", HALF),
    ],
)
def test_a_lone_surrogate_is_shown_as_an_escape_and_the_report_can_be_written(render) -> None:  # type: ignore[no-untyped-def]
    text = render(_night())
    assert "\\ud83d" in text
    text.encode("utf-8")  # what staging does with it


@pytest.mark.parametrize("kind", ["md", "html"])
def test_the_arabic_letter_mark_is_shown_not_obeyed(kind: str) -> None:
    """U+061C reorders the text around it like U+200F (RLM), which is already shown."""
    night = staged_night()
    family = replace(night.families[0], examples=("run \u061c--force make",))
    report = replace(night, families=(family,))
    text = render_html(report, DIFF) if kind == "html" else render_markdown(report, DIFF)
    assert "\u061c" not in text and "\\u061c" in text
