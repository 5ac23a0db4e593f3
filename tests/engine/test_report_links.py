"""Untrusted text in a staged report never becomes a link. Requests, edits, judge notes and a
night's message reach the report as written; GitHub-flavoured Markdown autolinks a bare
``https://…``, ``www.…`` or e-mail address in text, so the Markdown report (read in a repository
viewer or a pull request) turned an edit's "see https://evil.example/x" into a link to click.
They must stay text that reads as written (GFM never autolinks inside a code span). The HTML
report makes no link of them (only its own table of contents), which the last test keeps.

The Markdown fix is in ``skillopt_sleep/stage/`` (outside this change): the Markdown
tests are marked until it lands."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillopt_sleep.engine import ProjectState, read_report
from skillopt_sleep.engine.night import TargetRun
from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.engine.reporting import stage_report, summary_line
from skillopt_sleep.engine.state import append_line, write_json
from skillopt_sleep.jsonable import to_jsonable
from tests.stage.reports import quiet_night, staged_night

markdown_it = pytest.importorskip("markdown_it")

URLS = (
    "https://evil.example/x",
    "www.evil.example",
    "HTTP://EVIL.EXAMPLE/up",
    "ftp://evil.example/f",
    "me@evil.example",
    "mailto:me@evil.example",
    "(see https://evil.example/a`b``c)",
    "x_www.evil.example/y",
    "*www.evil.example*",
    "https://evil.example/p|q",
)
# what an autolinker looks for in text: a scheme, a www. host, an e-mail address
LINKABLE = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]*://|www\.|mailto:|[\w.+-]+@[\w-]+\.\w)")


def _hostile() -> NightReport:
    night = staged_night()
    said = " and ".join(URLS)
    family = replace(night.families[0], examples=(f"open {URLS[0]} please",))
    first = replace(night.edits[0], rationale=f"go to {said}", anchor="", content=said)
    steps = tuple({**s, "decision": f"rejected: see {URLS[-1]}"} for s in night.changes[0].steps)
    change = replace(night.changes[0], steps=steps)
    return replace(
        night,
        message=f"visit {said}",
        families=(family, *night.families[1:]),
        edits=(first, *night.edits[1:]),
        changes=(change, *night.changes[1:]),
        backends={**night.backends, "judge": f"openai:gpt at {URLS[1]}"},
    )


def _stage(project: Path, report: NightReport) -> Path:
    runs = []
    for change in report.changes:
        accepted = tuple(e for e in report.accepted if e.skill == change.path)
        result: Any = SimpleNamespace(proposed_text="new\n", accepted=accepted)
        runs.append(TargetRun(Path(change.path), change.kind, b"old\n", result))
    return Path(stage_report(ProjectState(project), report, runs).proposal_dir)


@pytest.fixture
def staged(tmp_path: Path) -> Path:
    project = tmp_path / "webapp"
    project.mkdir()
    return _stage(project, _hostile())


def _inline(markdown: str) -> list[Any]:
    tokens = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(markdown)
    return [t for t in tokens if t.type == "inline"]


def _plain(token: Any) -> str:
    return "".join(c.content for c in token.children or () if c.type in ("text", "code_inline"))


def _linkable(markdown: str) -> list[str]:
    return [
        child.content
        for token in _inline(markdown)
        for child in token.children or ()
        if child.type == "link_open" or (child.type == "text" and LINKABLE.search(child.content))
    ]


def test_no_url_in_the_markdown_is_text_an_autolinker_reads(staged: Path) -> None:
    assert not _linkable((staged / "report.md").read_text(encoding="utf-8"))


def test_a_quoted_message_cannot_pair_its_backtick_with_a_code_span(tmp_path: Path) -> None:
    """A night that staged nothing quotes its message in the decision ("Nothing to decide:
    …"); a backtick in it must stay escaped, or it closes the code span a URL is shown in."""
    project = tmp_path / "webapp"
    project.mkdir()
    said = f"` {URLS[0]} and {URLS[1]}"
    night = replace(quiet_night(), outcome="stopped", message=said, project=str(project))
    state = ProjectState(project).ensure()
    write_json(state.night_dir(night.night_id) / "report.json", to_jsonable(night))
    append_line(state.history_path, summary_line(night))
    markdown = read_report(project).text
    assert not _linkable(markdown)
    shown = [_plain(token) for token in _inline(markdown)]
    assert f"Nothing to decide: {said}, so nothing was staged." in shown


def test_the_urls_read_as_written(staged: Path) -> None:
    markdown = (staged / "report.md").read_text(encoding="utf-8")
    shown = [_plain(token) for token in _inline(markdown)]
    said = " and ".join(URLS)
    assert f"visit {said}" in shown  # the message, on its own line
    assert f"Why: go to {said}" in shown
    assert f"open {URLS[0]} please" in shown  # a family's example request
    assert f"judge backend: openai:gpt at {URLS[1]}" in shown
    assert any(f"rejected: see {URLS[-1]}" == cell for cell in shown)  # a steps table cell


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" or any(name in ("href", "src", "xlink:href") for name, _ in attrs):
            self.links.append({"tag": tag, **dict(attrs)})

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_html_makes_no_link_of_them_and_shows_them_as_written(staged: Path) -> None:
    page = _Links()
    page.feed((staged / "report.html").read_text(encoding="utf-8"))
    assert page.links and all(
        link["tag"] == "a" and str(link.get("href", "")).startswith("#") for link in page.links
    )
    text = "".join(page.text)
    assert f"visit {' and '.join(URLS)}" in text and f"go to {' and '.join(URLS)}" in text
