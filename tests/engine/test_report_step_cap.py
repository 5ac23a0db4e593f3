"""A staged report's steps table and steps chart are capped: a night with a very large
``night.max_tasks`` runs thousands of optimizer steps, and the Markdown (handed whole to an
agent) and the HTML page grew a row, three chart points and a numbers-table row per step,
without bound (2,000 steps: a 118 KB Markdown, a 1 MB page). Both show the first steps and a
line saying how many were left out; ``report.json`` keeps every step.

The cap is in ``skillopt_sleep/stage/`` (outside this change): marked until it lands."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.engine.night import TargetRun
from skillopt_sleep.engine.reporting import stage_report
from tests.stage.reports import staged_night

MANY = 2000
CAP = 50  # the most steps a report shows per changed file


def _stage(root: Path, step_count: int) -> Path:
    root.mkdir()
    report = staged_night(step_count=step_count)
    runs = []
    for change in report.changes:
        accepted = tuple(e for e in report.accepted if e.skill == change.path)
        result: Any = SimpleNamespace(proposed_text="new\n", accepted=accepted)
        runs.append(TargetRun(Path(change.path), change.kind, b"old\n", result))
    return Path(stage_report(ProjectState(root), report, runs).proposal_dir)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.points: list[int] = []  # per steps chart
        self.rows: list[int] = []  # per steps numbers table
        self.text: list[str] = []
        self._in_numbers = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "svg" and str(found.get("id", "")).startswith("chart-steps-"):
            self.points.append(int(str(found["data-points"])))
            self.rows.append(0)
        elif tag == "tr" and self.rows:
            self.rows[-1] += 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _cut(text: str, omitted: int) -> bool:
    return re.search(rf"\b{omitted:,} more steps?\b", text) is not None


def _step_tables(markdown: str) -> list[list[str]]:
    """The step numbers of each "Score across tonight's steps" table, per changed file."""
    sections = markdown.split("### Score across tonight's steps")[1:]
    last = sections[-1].split("### Held-out score across nights")[0] if sections else ""
    return [re.findall(r"^\| (\d+) \|", s, flags=re.M) for s in [*sections[:-1], last]]


def test_the_markdown_shows_the_first_steps_and_says_how_many_are_left_out(
    tmp_path: Path,
) -> None:
    staged = _stage(tmp_path / "many", MANY)
    markdown = (staged / "report.md").read_text(encoding="utf-8")
    every = [c["steps"] for c in json.loads((staged / "report.json").read_text())["changes"]]
    assert len(every[0]) == MANY  # report.json keeps every step
    tables = _step_tables(markdown)
    assert [len(rows) for rows in tables] == [min(CAP, len(steps)) for steps in every]
    assert tables[0][:3] == ["0", "1", "2"]
    assert _cut(markdown, MANY - CAP)


def test_the_page_charts_and_tabulates_the_first_steps_and_says_how_many_are_left_out(
    tmp_path: Path,
) -> None:
    staged = _stage(tmp_path / "many", MANY)
    page = _Page()
    page.feed((staged / "report.html").read_text(encoding="utf-8"))
    assert page.points and all(points <= 3 * CAP for points in page.points)
    assert all(rows <= CAP + 1 for rows in page.rows)  # + the header row
    assert _cut("".join(page.text), MANY - CAP)


def test_a_report_does_not_grow_with_its_steps(tmp_path: Path) -> None:
    few, many = _stage(tmp_path / "few", CAP + 10), _stage(tmp_path / "many", MANY)
    for name in ("report.md", "report.html"):
        grew = (many / name).stat().st_size - (few / name).stat().st_size
        assert grew < 200, f"{name} grew {grew} bytes"
