"""An unset judge backend is a choice (rule checks only), not a blank cell; a note on an older
report page without ``<main>`` goes inside its body, not before its doctype (quirks mode)."""

from __future__ import annotations

from dataclasses import replace

from skillopt_sleep.stage.report import render_html, render_markdown, with_note
from tests.stage.reports import DIFF, staged_night


def test_an_unset_judge_backend_is_named_as_rule_checks_only() -> None:
    night = replace(staged_night(), backends={"optimizer": "mock", "target": "mock", "judge": ""})
    assert "- judge backend: none (rule checks only)" in render_markdown(night, DIFF)
    assert "<td>judge backend</td><td>none (rule checks only)</td>" in render_html(night, DIFF)


def test_a_note_on_a_page_without_main_goes_inside_its_body() -> None:
    page = "<!doctype html><html><body><h1>Night</h1></body></html>"
    noted = with_note(page, "html", "this proposal was adopted")
    assert noted.startswith("<!doctype html>")
    assert noted.index("this proposal was adopted") > noted.index("<body>")
