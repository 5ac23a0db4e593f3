"""A night over hundreds of families: the report opens with the decision and stays small.

The Markdown is what the MCP ``report`` tool hands an agent whole, so its size is checked against
a fixed bound, and what the decision needs (the verdict, every accepted edit, the diff or where
it is) is checked to be there and to come before the families. What the report cuts is checked
to be whole in ``families.md`` (the families) or named on disk (the diff, the rejected edits).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from skillopt_sleep.engine.records import EditView, FamilyView, NightReport
from skillopt_sleep.stage import _bounds as b
from skillopt_sleep.stage import _text as t
from skillopt_sleep.stage._markdown import inline
from skillopt_sleep.stage.report import render_families, render_html, render_markdown
from tests.stage.reports import DIFF, MEMORY, SKILL, many_families, staged_night

MAX_MARKDOWN = 16 * 1024  # bytes: the documented bound for a night of 500 families
STAGED = "/home/dev/.local/state/skillopt-sleep/webapp/staging/20261123-031700"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _at(text: str, needle: str) -> int:
    assert needle in text, needle
    return text.index(needle)


@pytest.mark.parametrize("families", [111, 500])
def test_a_night_of_hundreds_of_families_fits_and_opens_with_the_decision(families: int) -> None:
    report = many_families(families)
    text = render_markdown(report, DIFF)
    assert _size(text) < MAX_MARKDOWN, _size(text)
    start = _at(text, f"## Families tonight ({families})")
    decision = [
        _at(text, "## What to decide"),
        _at(text, "`skillopt-sleep adopt 20261123-031700`"),
        _at(text, "Held-out score 50% → 70% (+20 pts; 95% interval +5 to +35 pts)"),
        _at(text, "**better**"),
        _at(text, "| release-notes/SKILL.md | skill | 40% | 70% | +30 pts | 10 |"),
        _at(text, "## Accepted edits (3)"),
    ]
    for edit in report.accepted:  # every accepted edit, whole
        decision.append(_at(text, edit.content))
        decision.append(_at(text, inline(edit.rationale)))
    decision += [_at(text, "```diff\n" + DIFF + "```"), _at(text, "## Rejected edits (2)")]
    assert max(decision) < start, "the decision comes before the families"
    assert decision[0] < 1024, "the decision is at the top"


def test_the_report_does_not_grow_with_the_families() -> None:
    sizes = [_size(render_markdown(many_families(n), DIFF)) for n in (21, 111, 500, 2000)]
    assert max(sizes) - min(sizes) < 200, sizes


def test_the_families_beyond_the_cap_are_one_line_and_families_md_has_them_all() -> None:
    report = many_families(111)
    text = render_markdown(report, DIFF)
    cards = re.findall(r"^### (\S+) — ", text[text.index("## Families tonight") :], re.M)
    assert len(cards) == b.FAMILY_CARDS
    rest = b.split_families(report).rest
    assert len(rest) == 111 - b.FAMILY_CARDS
    requests = t.count(sum(f.size for f in rest))
    assert f"**91 more families with {requests} requests (sizes 24 ×" in text
    assert f"is in `{STAGED}/families.md`." in text
    full = render_families(report)
    headings = re.findall(r"^### (\S+) — ", full, re.M)
    assert sorted(headings) == sorted(inline(f.id) for f in report.families)
    for family in report.families:
        for example in family.examples:
            assert inline(t.one_line(example)) in full
        for check in family.checks:
            assert check in full


def test_cards_go_first_to_families_behind_an_accepted_edit_or_a_failure() -> None:
    """Thirty large families routed to a skill nothing changed, and two small ones routed to
    the edited skill (one with a failed session): the small ones get the first cards."""
    other = "/home/dev/webapp/.claude/skills/untouched/SKILL.md"
    big = tuple(
        FamilyView(f"big-{i:02d}", 50 + i, ("a large family",), "checks", (), other)
        for i in range(30)
    )
    failed = FamilyView("small-failed", 2, ("x",), "checks", (), MEMORY, outcomes={"failed": 1})
    edited = FamilyView("small-edited", 3, ("y",), "checks", (), SKILL)
    report = replace(staged_night(), families=(*big, edited, failed))
    featured = [f.id for f in b.split_families(report).featured]
    assert featured[:3] == ["small-failed", "small-edited", "big-29"]
    text = render_markdown(report, DIFF)
    assert _at(text, "### small-failed") < _at(text, "### small-edited") < _at(text, "### big-29")
    assert "### big-00" not in text and "**12 more families with 666 requests" in text


def test_a_huge_diff_is_cut_and_names_the_file_that_has_it_whole() -> None:
    lines = [f"+line {i} of a new skill" for i in range(5000)]
    diff = "--- /dev/null\n+++ " + SKILL + "\n@@ -0,0 +1,5000 @@\n" + "\n".join(lines) + "\n"
    report = many_families(500)
    text = render_markdown(report, diff)
    block = re.search(r"```diff\n(.*?)```", text, re.S)
    assert block is not None and block.group(1) == "".join(
        f"{line}\n" for line in diff.split("\n")[: b.DIFF_LINES]
    )
    assert f"… 4,803 more lines not shown; the whole diff is in `{STAGED}/diff.patch`." in text
    assert _size(text) < MAX_MARKDOWN + b.DIFF_LINES * 40
    page = render_html(report, diff)
    assert page.count('<span class="add">') == b.DIFF_LINES - 3
    assert f"<code>{STAGED}/diff.patch</code>" in page


def test_a_short_diff_is_never_cut() -> None:
    diff = "".join(f"+{i}\n" for i in range(b.DIFF_LINES))
    assert b.diff_head(diff) == b.DiffHead(diff, 0)
    assert b.diff_head(diff + "+one more\n").omitted == 1


def test_many_rejected_edits_show_the_harmful_first_and_say_where_the_rest_are() -> None:
    base = staged_night()
    rejected = tuple(
        EditView(SKILL, "add", "", f"rejected idea {i}", "", i, False, -0.01) for i in range(30)
    )
    harmful = replace(rejected[0], content="the harmful one", step=31, delta=-0.4, harmful=True)
    report = replace(base, edits=(*base.accepted, *rejected, harmful))
    text = render_markdown(report, DIFF)
    section = text[_at(text, "## Rejected edits (31)") : _at(text, "## Scores across")]
    assert section.index("the harmful one") < section.index("rejected idea 0")
    assert "rejected idea 8" in section and "rejected idea 9" not in section
    assert f"21 more rejected edits not shown; every edit is in `{STAGED}/report.json`." in text


def test_the_html_page_says_the_same_in_the_same_order() -> None:
    report = many_families(500)
    page = render_html(report, DIFF)
    order = [
        _at(page, f'id="{anchor}"')
        for anchor in ("decision", "held-out", "validation", "edits", "diff", "rejected")
    ]
    order += [_at(page, 'id="charts"'), _at(page, 'id="families"'), _at(page, 'id="usage"')]
    assert order == sorted(order)
    assert page.count('class="card family"') == b.FAMILY_CARDS
    assert t.more_families(b.split_families(report).rest) in page
    assert f"<code>{STAGED}/families.md</code>" in page


def test_without_a_proposal_directory_the_files_are_named_beside_the_report() -> None:
    report: NightReport = replace(many_families(30), proposal_dir="")
    assert "is in `families.md`." in render_markdown(report, DIFF)
