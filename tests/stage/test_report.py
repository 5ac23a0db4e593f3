"""What the Markdown and HTML reports say, that they escape everything, and that charts render.

The HTML is checked structurally with the standard library's parser and every chart is parsed
as XML; the Markdown is rendered with markdown-it (CommonMark + tables, as GitHub renders it)
to prove that hostile text cannot become markup. The browser itself is exercised in
``test_report_chromium.py``.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from html import escape
from html.parser import HTMLParser

import pytest

from skillopt_sleep.engine.records import HeldOut
from skillopt_sleep.jsonable import dumps
from skillopt_sleep.stage._charts import Series, line_chart
from skillopt_sleep.stage.report import render_html, render_markdown
from tests.stage.reports import DIFF, HOSTILE, hostile_night, quiet_night, staged_night

SECTIONS = (
    "decision",
    "held-out",
    "validation",
    "edits",
    "diff",
    "rejected",
    "charts",
    "families",
    "usage",
)


class _Tags(HTMLParser):
    """Every start tag with its attributes, for structural assertions."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _charts(page: str) -> dict[str, ET.Element]:
    """Each ``<svg class="chart">`` by id, parsed as XML (so it must be well-formed)."""
    blocks = re.findall(r'<svg class="chart".*?</svg>', page, flags=re.S)
    parsed = [ET.fromstring(block) for block in blocks]
    return {str(svg.get("id")): svg for svg in parsed}


def _points(svg: ET.Element) -> int:
    return len(svg.findall(".//{http://www.w3.org/2000/svg}circle"))


# --- HTML --------------------------------------------------------------------------------------


def test_html_is_self_contained_and_has_every_section() -> None:
    page = render_html(staged_night(), DIFF)
    tags = _tags(page)
    names = {name for name, _ in tags}
    assert page.startswith("<!doctype html>")
    assert not names & {"script", "link", "img", "iframe", "object", "embed", "base", "form"}
    assert not re.search(r"(src|href)\s*=\s*\"(https?:|//)", page)
    assert "@import" not in page and "url(" not in page
    assert any(name == "meta" and attrs.get("name") == "viewport" for name, attrs in tags), (
        "a viewport meta is what makes the page readable on a phone"
    )
    csp = [a["content"] for n, a in tags if n == "meta" and a.get("http-equiv")]
    assert csp and "default-src 'none'" in str(csp[0])
    ids = {attrs.get("id") for _, attrs in tags}
    assert set(SECTIONS) <= ids
    for anchor in SECTIONS:
        assert f'href="#{anchor}"' in page


def test_html_shows_what_a_user_needs_to_decide() -> None:
    report = staged_night()
    page = render_html(report, DIFF)
    # families: example requests, how each is judged, the skill it was routed to
    assert "write the release notes for v2.3 from the merged PRs" in page
    assert escape("contains: ## Breaking changes") in page
    assert "checks" in page and "rubric" in page
    assert "release-notes/SKILL.md" in page and "CLAUDE.md" in page
    # validation per changed file, and the plain note when the gate used training tasks
    assert "40%" in page and "70%" in page and "+30 pts" in page
    assert "Gated on training tasks: too few validation tasks existed" in page
    # held-out before/after, interval, n, verdict
    assert "Held-out score 50% → 70%" in page
    assert "+5 to +35 pts" in page and "on 12 tasks" in page
    assert "Verdict: better" in page
    # edits with deltas, harmful marked
    assert page.count('class="card edit accepted"') == 3
    assert page.count('class="card edit harmful"') == 1
    assert page.count('class="card edit rejected"') == 1
    assert "−30 pts" in page and ">harmful<" in page
    # calls, tokens, cost
    assert "1,234" in page and "2,345,678" in page and "123,456" in page and "$0.4321" in page
    # the command to run next
    assert "<code>skillopt-sleep adopt 20261123-031700</code>" in page


def test_html_diff_lines_are_coloured_and_escaped() -> None:
    page = render_html(staged_night(), DIFF)
    lines = DIFF.splitlines()
    adds = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    dels = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    assert page.count('<span class="add">') == adds
    assert page.count('<span class="del">') == dels
    assert page.count('<span class="hunk">') == 2
    assert page.count('<span class="file">') == 4
    assert "&lt;JIRA-1&gt;" in page and "<JIRA-1>" not in page


def test_html_escapes_everything_user_or_model_written() -> None:
    page = render_html(hostile_night(), DIFF + "+" + HOSTILE + "\n")
    names = [name for name, _ in _tags(page)]
    assert "script" not in names
    assert all("onmouseover" not in attrs for _, attrs in _tags(page))
    assert "<script" not in page.lower()
    assert escape(HOSTILE) in page  # shown, as text
    assert "ünïcødé 🌙" in page
    # closing tags in the input never close ours: every <pre> we open is closed
    assert page.count("<pre") == page.count("</pre>")
    _charts(page)  # hostile night ids in the axis labels still make well-formed SVG


def test_no_held_out_tasks_yet_is_said_plainly() -> None:
    page = render_html(replace(staged_night(), held_out=None), DIFF)
    assert "No held-out tasks yet" in page
    assert "no held-out tasks yet" in page  # the summary card


@pytest.mark.parametrize(
    ("verdict", "lo", "hi"),
    [
        ("no measurable change", -0.1, 0.2),
        ("worse", -0.4, -0.1),
        ("too few tasks to tell", 0.0, 1.0),
    ],
)
def test_every_verdict_is_explained(verdict: str, lo: float, hi: float) -> None:
    held = HeldOut(before=0.5, after=0.5, n=2, ci_low=lo, ci_high=hi, verdict=verdict)  # type: ignore[arg-type]
    report = staged_night(held=held)
    for text in (render_html(report, DIFF), render_markdown(report, DIFF)):
        assert f"Verdict: {verdict} — " in text


def test_quiet_night_renders_every_section_and_both_charts_empty() -> None:
    page = render_html(quiet_night(), "")
    ids = {attrs.get("id") for _, attrs in _tags(page)}
    assert set(SECTIONS) <= ids
    charts = _charts(page)
    assert set(charts) == {"chart-steps-0", "chart-nights"}
    assert all(_points(svg) == 0 for svg in charts.values())
    assert "no optimizer steps tonight" in page and "no held-out tasks yet" in page
    assert "Nothing to decide: there were no new sessions" in page
    assert "No file changes were staged tonight." in page


@pytest.mark.parametrize("steps", [0, 1, 2, 50, 60])
def test_steps_chart_with_any_number_of_points(steps: int) -> None:
    """Past :data:`._bounds.STEPS` the chart shows the first steps (the page says how many
    more ``report.json`` has)."""
    from skillopt_sleep.stage._bounds import STEPS

    report = staged_night(step_count=steps)
    chart = _charts(render_html(report, DIFF))["chart-steps-0"]
    plotted = sum(
        (r.get("train_hard") is not None)
        + (r.get("val_current") is not None)
        + (r.get("val_candidate") is not None)
        for r in report.changes[0].steps[:STEPS]
    )
    assert _points(chart) == plotted == int(chart.get("data-points", "-1"))
    labels = [
        t for t in chart.iter("{http://www.w3.org/2000/svg}text") if "tick" in str(t.get("class"))
    ]
    x_labels = [t.text for t in labels if t.text and t.text.startswith("step")]
    assert len(x_labels) <= 12, "labels thin out instead of overlapping"
    if steps:
        assert x_labels[-1] == f"step {min(steps, STEPS) - 1}", "the last step keeps its label"
    else:
        assert not x_labels


@pytest.mark.parametrize("nights", [0, 1, 40])
def test_nights_chart_with_any_number_of_nights(nights: int) -> None:
    chart = _charts(render_html(staged_night(history_nights=nights), DIFF))["chart-nights"]
    assert _points(chart) == 2 * (nights + 1)  # before and after, tonight included
    strong = [
        t.text
        for t in chart.iter("{http://www.w3.org/2000/svg}text")
        if "strong" in str(t.get("class"))
    ]
    assert strong == ["11-23 03:17"], "tonight's label is always shown, in bold"


def test_nights_chart_without_held_out_tonight_still_shows_the_history() -> None:
    chart = _charts(render_html(replace(staged_night(history_nights=3), held_out=None), DIFF))
    assert _points(chart["chart-nights"]) == 6


def test_tonight_already_in_the_history_is_one_point() -> None:
    report = staged_night(history_nights=2)
    history = (
        *report.history,
        {"night_id": report.night_id, "held_out_before": 0.1, "held_out_after": 0.2},
    )
    chart = _charts(render_html(replace(report, history=history), DIFF))["chart-nights"]
    assert _points(chart) == 6  # 2 earlier nights + tonight, each before and after


def test_one_chart_per_changed_file() -> None:
    charts = _charts(render_html(staged_night(), DIFF))
    assert set(charts) == {"chart-steps-0", "chart-steps-1", "chart-nights"}


def test_line_chart_edge_cases() -> None:
    empty = ET.fromstring(
        line_chart(chart_id="c", title="t", x_title="Step", labels=[], series=[], empty="nothing")
    )
    assert _points(empty) == 0 and "nothing" in ET.tostring(empty, encoding="unicode")
    gaps = ET.fromstring(
        line_chart(
            chart_id="c",
            title="t",
            x_title="Step",
            labels=["a", "b"],
            series=[Series("s", "x", [None, None])],
            empty="nothing",
        )
    )
    assert _points(gaps) == 0
    one = ET.fromstring(
        line_chart(
            chart_id="c",
            title="t",
            x_title="Step",
            labels=["a"],
            series=[Series("s", "x", [1.7])],
            empty="nothing",
        )
    )
    (dot,) = one.iter("{http://www.w3.org/2000/svg}circle")
    assert float(dot.get("cy", "0")) >= 14 - 1e-9, "values are clamped into the plot"
    assert not list(one.iter("{http://www.w3.org/2000/svg}polyline")), "one point, no line"


def test_rendering_is_deterministic() -> None:
    report = staged_night(step_count=9)
    assert render_html(report, DIFF) == render_html(report, DIFF)
    assert render_markdown(report, DIFF) == render_markdown(report, DIFF)


def test_the_sample_reports_are_json_ready() -> None:
    """report.json is written with to_jsonable: the records these tests render must convert."""
    assert '"night_id": "20261123-031700"' in dumps(staged_night(), indent=2)


# --- Markdown ----------------------------------------------------------------------------------


def test_markdown_has_every_section_in_order_and_the_facts() -> None:
    text = render_markdown(staged_night(), DIFF)
    at = []
    for heading in (  # the decision and its evidence first, the night's detail after
        "# SkillOpt-Sleep night 20261123-031700",
        "## What to decide",
        "## Held-out tasks",
        "## Validation (the gate)",
        "## Accepted edits (3)",
        "## Diff",
        "## Rejected edits (2)",
        "## Scores across steps and nights",
        "### Score across tonight's steps: release-notes/SKILL.md",
        "### Held-out score across nights",
        "## Families tonight (2)",
        "## Calls, tokens and cost",
    ):
        assert f"\n{heading}\n" in f"\n{text}", heading
        at.append(f"\n{text}".index(f"\n{heading}\n"))
    assert at == sorted(at)
    assert "`skillopt-sleep adopt 20261123-031700`" in text
    assert "**gated on training tasks: too few validation tasks existed" in text
    assert "+5 to +35 pts" in text and "**better**" in text
    assert "· **harmful**" in text
    assert "| 1,234 | 2,345,678 | 123,456 | $0.4321 |" in text
    assert "20261123-031700 (tonight) | 50% | 70% |" in text
    assert "```diff\n" + DIFF + "```" in text


def test_markdown_quiet_night() -> None:
    text = render_markdown(quiet_night(), "")
    assert "No held-out tasks yet" in text
    assert "No recurring task families tonight." in text
    assert "No file changes were staged tonight." in text
    assert "No edit was accepted tonight." in text


def test_markdown_cannot_be_broken_by_hostile_text() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    diff = DIFF + "+```\n+" + HOSTILE + "\n"
    text = render_markdown(hostile_night(), diff)
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    tags = _tags(rendered)
    names = {name for name, _ in tags}
    assert "script" not in names and "b" not in names  # our Markdown uses ** (strong), not <b>
    assert all("onmouseover" not in attrs for _, attrs in tags)
    # the hostile text never opened a heading or a table cell of its own
    headings = [m for m in re.findall(r"<h[1-6]>(.*?)</h[1-6]>", rendered)]
    assert not any("not a heading" in h for h in headings)
    # the diff is one fenced block even though it contains a ``` run
    assert rendered.count('<code class="language-diff">') == 1
    assert "ünïcødé 🌙" in rendered


@pytest.mark.parametrize(("steps", "nights"), [(1, 0), (7, 3), (60, 40), (200, 90)])
def test_axis_labels_stay_inside_and_never_overlap(steps: int, nights: int) -> None:
    from skillopt_sleep.stage._charts import CHAR_W, LABEL_Y, WIDTH

    page = render_html(staged_night(step_count=steps, history_nights=nights), DIFF)
    for chart_id, chart in _charts(page).items():
        spans = []
        for text in chart.iter("{http://www.w3.org/2000/svg}text"):
            if text.get("y") != str(LABEL_Y) or not text.text:  # the x-axis label row
                continue
            width = len(text.text) * CHAR_W
            x = float(text.get("x", "0"))
            left = {"middle": x - width / 2, "end": x - width, "start": x}[
                str(text.get("text-anchor"))
            ]
            spans.append((left, left + width))
        assert spans, chart_id
        assert all(a >= 0 and b <= WIDTH for a, b in spans), (chart_id, spans)
        assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans)), (chart_id, spans)


def test_when_the_night_ran_is_readable() -> None:
    report = staged_night()
    for text in (render_markdown(report, DIFF), render_html(report, DIFF)):
        assert "2026-11-23 03:17:00 UTC, took 4 min 42 s" in text
    odd = replace(report, started_at="not a time", finished_at="")
    assert "not a time" in render_markdown(odd, DIFF)


INVISIBLE = "fix the \u202etset nigol\u202c test \x1b]0;owned\x07 \x00 done\r"


@pytest.mark.parametrize("render", [render_markdown, render_html])
def test_control_and_bidi_characters_are_shown_not_obeyed(render) -> None:  # type: ignore[no-untyped-def]
    """A bidi override reorders what a reader sees ("Trojan Source"), an ESC sequence retitles
    or rewrites a terminal: in a report each shows as an escape, never as itself."""
    night = hostile_night()
    family = replace(night.families[0], examples=(INVISIBLE,))
    text = render(replace(night, families=(family,)), DIFF + "+" + INVISIBLE + "\n")
    assert not set(text) & {"\u202e", "\u202c", "\x1b", "\x07", "\x00", "\r"}
    assert "\\u202etset nigol\\u202c" in text and "\\x1b]0;owned\\x07" in text
    assert "ünïcødé 🌙" in text  # ordinary characters are left alone
