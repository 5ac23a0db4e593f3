"""Bare hosts in a report stay text in a renderer with linkify on (failed before the fix).

GitHub-flavoured Markdown autolinks only a scheme, ``www.`` or an e-mail address, which the
report already shows as code. markdown-it with ``linkify: true`` (VS Code's Markdown preview, and
renderers like it) also links a bare host: ``evil.com/login``, ``paypal.com.evil.io?x``,
``xn--pypl-53dc.com``, even ``setup.py`` (``.py`` is Paraguay's domain) and, with fuzzy IPs on,
``10.0.0.1/admin``. Requests, edits and rationales reach the report as written, so each such word
must be a code span (no renderer links inside one) and read as written.

Checked with the real implementation (``markdown-it-py`` and ``linkify-it-py``, the ``dev``
extra); the tests skip without them.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.stage._markdown import inline
from skillopt_sleep.stage.report import render_families, render_html, render_markdown, with_note
from tests.stage.reports import DIFF, staged_night

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (the dev extra) renders")
linkify_it = pytest.importorskip("linkify_it", reason="linkify-it-py (the dev extra) links hosts")

BARE = (
    "evil.com/login",
    "login.evil.co",
    "paypal.com.evil.io?x",
    "xn--pypl-53dc.com",
    "10.0.0.1/admin",
    "10.0.0.1:8080",
    "setup.py",
    "CLAUDE.md",
    "EVIL.COM",
    "пример.рф",
    "shop.xn--p1ai/x",
    "//localhost/x",
    "//evil.com",
    "(evil.com)",
    "evil.com.",
    "x*evil.com",
    "`evil.com",
    "evil\u200b.com",  # a zero-width space is a letter to linkify
    "évil.co",
    "evil|.com",  # a "|" is a letter to linkify too
    "a@b.co",
    "user:pass@evil.com",
    "bob$@evil.com",  # linkify takes more before an "@" than GFM does
    "bob=@evil.com",
    ";@evil.co",
    ",@evil.co",
)
PROSE = ("e.g.", "i.e.", "etc.", "v1.2.3", "3.14", "62.5%", "U.S.", "a.m.", "wait...no", "1.5x",
         "report.json", "os.path.join", "self.assertEqual", "df.groupby()", "done.Then",
         "Mr.Smith", "config.yaml", "package.json")  # fmt: skip


def _renderer(fuzzy_ip: bool = True) -> Any:
    md = markdown_it.MarkdownIt("commonmark", {"html": True, "linkify": True})
    md.enable(["table", "linkify"])
    md.linkify.set({"fuzzy_ip": fuzzy_ip})
    return md


def _links(markdown: str) -> list[str]:
    return re.findall(r"<a [^>]*>.*?</a>", _renderer().render(markdown))


def test_the_checker_links_what_the_report_must_not() -> None:
    """The renderer the tests use links every word of :data:`BARE` written as plain text."""
    for word in BARE:
        assert _links(f"see {word} now"), word


@pytest.mark.parametrize("word", BARE, ids=repr)
def test_a_bare_host_is_code_and_reads_as_written(word: str) -> None:
    markdown = inline(f"see {word} now")
    assert not _links(markdown)
    assert _links(f"see {word} now")  # what it was before: a link
    tokens = _renderer().parse(markdown)
    shown = "".join(c.content for c in tokens[1].children if c.type in ("text", "code_inline"))
    assert shown == f"see {word} now"


# paths linkify-it reads as no host: a host never follows "/", "_", ":" or "@"
PATHS = ("release-notes/SKILL.md", "docs/deploy.md", "x_evil.com", "~/.ssh/config", "a:b.io")


@pytest.mark.parametrize("word", PROSE + PATHS, ids=repr)
def test_ordinary_prose_and_paths_stay_text(word: str) -> None:
    assert not _links(f"see {word} now")
    assert inline(f"see {word} now") == "see " + re.sub(r"([_~])", r"\\\1", word) + " now"


_PIECES = (
    "evil", "com", "io", "py", "md", "рф", "xn--p1ai", "www", "localhost", "0", "1", "10", "255",
    ".", ".", ".", "/", "//", ":", "@", "|", "-", "_", "*", "`", "(", ")", "?", "#", "\\", "'",
    " ", "\u200b", "\u3002",
)  # fmt: skip


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_no_text_made_of_host_pieces_becomes_a_link(text: str) -> None:
    markdown = f"see {inline(text)} now"
    assert not _links(markdown), markdown
    tokens = _renderer().parse(markdown)
    shown = "".join(c.content for t in tokens if t.children for c in t.children)
    assert shown == f"see {' '.join(text.split())} now"


def test_a_pipe_between_hosts_stays_out_of_the_code_spans() -> None:
    """A table splits a cell at a "|" even inside a code span, so the pipe stays escaped text."""
    assert inline("x.io|y.io") == "`x.io`\\|`y.io`"
    assert not _links("| a |\n|---|\n| " + inline("x.io|y.io and a|b") + " |")


SAID = " ".join(BARE)


def _hostile() -> NightReport:
    night = staged_night()
    family = replace(
        night.families[0],
        id=SAID,
        examples=(SAID,) * 5,
        judged_by=SAID,
        outcomes={SAID: 1},
        checks=(SAID,),
        skill=f"/home/dev/{SAID.replace(' ', '_')}/SKILL.md",
    )
    edit = replace(night.edits[0], anchor=SAID, content=SAID, rationale=SAID, op=SAID)
    steps = tuple({**s, "decision": f"rejected: {SAID}"} for s in night.changes[0].steps)
    return replace(
        night,
        night_id=SAID,
        outcome=SAID,  # type: ignore[arg-type]
        message=SAID,
        families=(family, *night.families[1:]),
        edits=(edit, replace(edit, accepted=False), *night.edits[1:]),
        changes=(replace(night.changes[0], steps=steps), *night.changes[1:]),
        embedder=SAID,
        backends={SAID: SAID},
        stage_seconds={SAID: 1.0},
        history=({"night_id": SAID, "held_out_before": 0.2, "held_out_after": 0.3},),
    )


@pytest.mark.parametrize(
    "render",
    [
        lambda r: render_markdown(r, DIFF + "\n+" + SAID + "\n"),
        render_families,
        lambda r: with_note("body", "md", SAID),
    ],
    ids=["report", "families", "note"],
)
def test_no_untrusted_word_in_a_report_becomes_a_link(render: Any) -> None:
    markdown = render(_hostile())
    assert _links(markdown) == []  # '(… more in families.md)' was one
    assert _links(render(staged_night())) == []  # CLAUDE.md, a skill's label, was one


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" or any(name in ("href", "src", "xlink:href", "action") for name, _ in attrs):
            self.links.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_html_report_links_only_its_own_sections() -> None:
    page = _Links()
    page.feed(render_html(_hostile(), DIFF + "\n+" + SAID + "\n"))
    assert page.links
    for tag, attrs in page.links:
        assert tag == "a" and set(attrs) == {"href"}
        assert re.fullmatch(r"#[a-z-]+", str(attrs["href"]))
    shown = "".join(page.text)
    assert all(word in shown for word in BARE if word.isprintable())
