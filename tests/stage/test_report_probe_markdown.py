"""The Markdown report rendered by a CommonMark reader (markdown-it, as VS Code's preview uses):
user- or model-written text must not change the report's structure wherever it stands."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from skillopt_sleep.stage.report import render_families, render_markdown, with_note
from tests.stage.reports import DIFF, staged_night

markdown_it = pytest.importorskip("markdown_it")


def _html(markdown: str) -> str:
    return str(
        markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    )


def _section(html: str, title: str, end: str) -> str:
    return html[html.index(title) : html.index(end)]


@pytest.mark.parametrize("count", [10, 12])
def test_ten_or_more_edits_keep_their_blocks_inside_one_list(count: int) -> None:
    night = staged_night()
    edit = night.edits[0]
    edits = tuple(replace(edit, content=f"content {i}", rationale=f"why {i}") for i in range(count))
    html = _html(render_markdown(replace(night, edits=edits), DIFF))
    accepted = _section(html, "Accepted edits", "Deltas are the gate metric")
    assert accepted.count("<ol") == 1 and accepted.count("<li>") == count
    last = accepted.rindex("<li>")
    assert f"content {count - 1}" in accepted[last:] and f"why {count - 1}" in accepted[last:]
    assert accepted.index("</ol>") > accepted.index(f"why {count - 1}")


@pytest.mark.parametrize("text", ["---", "- item", "+ item", "1. item", "12) item", "==="])
def test_text_at_the_start_of_a_line_opens_no_list_and_draws_no_rule(text: str) -> None:
    night = staged_night()
    family = replace(night.families[0], examples=(text,))
    report = replace(night, message=text, families=(family,))
    for markdown in (
        render_markdown(report, DIFF),
        render_families(report),
        with_note("body", "md", text),
    ):
        html = _html(markdown)
        assert "<hr" not in html
        assert not re.search(r"<li>\s*<(ul|ol)", html), "a request became a nested list"
        assert f"<p>{text}</p>" in html or f"<li>{text}</li>" in html


def test_no_field_of_a_change_or_verdict_is_read_as_markup() -> None:
    night = staged_night()
    pixel = "![x](http://tracker.example/p.png)<img src=http://tracker.example/q.png>"
    change = replace(night.changes[0], kind=pixel)  # type: ignore[arg-type]
    held = replace(night.held_out, verdict=pixel)  # type: ignore[type-var, arg-type]
    html = _html(render_markdown(replace(night, changes=(change,), held_out=held), DIFF))
    assert "<img" not in html and "tracker.example/p.png" in html
