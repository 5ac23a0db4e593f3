"""Months of nights: a task asked every day must not keep every other task from being trained.

The history is built once per module: a developer asks for a paper summary every day for six
weeks (corrected two days in three), then starts asking for deployment manifests as well (always
corrected: the resource limits are missing). Each night adopts what it staged, as a user who trusts
it would. By then the daily task has more training requests than a night's ``max_tasks`` (24)
and more failures on record than any other, and it is new every night.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from skillopt_sleep.engine import NightReport, adopt, load_config, run_night
from skillopt_sleep.engine.select import estimated_calls, fit_to_budget, select_tasks
from skillopt_sleep.mine import FamilySummary, MineResult
from skillopt_sleep.records import Check, Task
from tests._isolation import isolate_sleep_state
from tests.engine._history import _record

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
DAILY_ONLY_DAYS = 40  # the manifests start on day 40
FIRST_NIGHT = 44  # the first night reads days 0-43, then one night a day
NIGHTS = 4


@dataclass(frozen=True)
class LongUse:
    project: Path
    reports: tuple[NightReport, ...]

    @property
    def skill(self) -> str:
        return next(self.project.rglob("SKILL.md")).read_text(encoding="utf-8")


def _session(folder: Path, project: Path, number: int, when: datetime, ask: str, fix: str) -> None:
    sid = str(uuid.UUID(int=number + 1))
    user = _record("user", sid, project, when, None, {"role": "user", "content": ask})
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    records = [user, _record("assistant", sid, project, when, user["uuid"], reply)]
    if fix:
        later = when + timedelta(minutes=1)
        message = {"role": "user", "content": fix}
        records.append(_record("user", sid, project, later, records[-1]["uuid"], message))
    text = "".join(json.dumps(r) + "\n" for r in records)
    (folder / f"{sid}.jsonl").write_text(text, encoding="utf-8")


def _day(folder: Path, project: Path, day: int) -> None:
    paper = f"2401.{10000 + day}"
    when = START + timedelta(days=day)
    fix = f"no, the arXiv id goes on its own line, formatted as arXiv:{paper}" if day % 3 else ""
    ask = f"summarize arXiv paper {paper} for the reading group"
    _session(folder, project, 2 * day, when, ask, fix)
    if day >= DAILY_ONLY_DAYS:
        ask = f"write a deployment manifest for the billing-{day} service"
        fix = "no, you forgot - include the resource limits"
        _session(folder, project, 2 * day + 1, when + timedelta(hours=2), ask, fix)


@pytest.fixture(scope="module")
def long_use(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LongUse]:
    root = tmp_path_factory.mktemp("long-use")
    project, home = root / "dev" / "work", root / "home"
    project.mkdir(parents=True)
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder.mkdir(parents=True)
    with pytest.MonkeyPatch.context() as patch:
        isolate_sleep_state(root, patch)
        overrides = {
            "homes.claude": str(home / ".claude"),
            "night.sources": "claude",
            "night.since": "3650d",
            "mine.embedder": "tfidf",
            "train.workers": 1,
        }
        config = load_config(project, overrides)
        reports = []
        for day in range(FIRST_NIGHT + NIGHTS - 1):
            _day(folder, project, day)
            if day + 1 < FIRST_NIGHT:
                continue
            night = START + timedelta(days=day + 1, hours=-6)
            report = run_night(project, config, home=home, now=night)
            if report.proposal:
                adopt(project, report.proposal, home=home)
            reports.append(report)
        yield LongUse(project, tuple(reports))


def test_a_task_asked_every_day_does_not_keep_a_newer_one_from_being_learned(
    long_use: LongUse,
) -> None:
    assert long_use.reports[0].outcome == "staged"
    # the daily task was learned (the line quotes one of its corrections: which one depends on
    # the minibatches, e.g. a paraphrase "the arXiv identifier goes on its dedicated line")
    assert re.search(r"the arXiv (id|identifier) goes on its (own|dedicated) line", long_use.skill)
    # before, the daily task took all 24 training slots every night: "the optimizer proposed no
    # edit" night after night, and ten corrected manifests were never trained on
    assert "resource limits" in long_use.skill


def _family(name: str, train: int, failed: int, new: int) -> tuple[FamilySummary, list[Task]]:
    check = (Check("contains", name),)
    tasks = [Task(f"{name}-{n}", name, f"{name} request {n}", "", check) for n in range(train)]
    intents = tuple(t.intent for t in tasks)
    summary = FamilySummary(name, name, train, intents, {"failed": failed}, {}, "checks", (), new)
    return summary, tasks


def _months() -> MineResult:
    """A daily task with months of corrected requests, and two newer ones failing as well."""
    daily, daily_tasks = _family("daily", train=60, failed=40, new=1)
    newer, newer_tasks = _family("newer", train=4, failed=4, new=1)
    rare, rare_tasks = _family("rare", train=2, failed=2, new=1)
    return MineResult(tuple(daily_tasks + newer_tasks + rare_tasks), (daily, newer, rare), "test")


def test_max_tasks_is_shared_by_every_family_that_is_new_tonight() -> None:
    selection = select_tasks(_months(), max_tasks=24, has_judge=False)
    counts = {f: sum(1 for t in selection.train if t.family == f) for f in selection.families}
    assert counts == {"daily": 18, "newer": 4, "rare": 2}  # was {"daily": 24}
    assert len(selection.train) == 24


def test_a_call_budget_trims_the_family_that_holds_the_most_tasks() -> None:
    selection = select_tasks(_months(), max_tasks=100, has_judge=False)
    assert len(selection.train) == 66
    budget = estimated_calls(selection, 1, 8) // 4
    trimmed = fit_to_budget(selection, 1, 8, budget)
    assert estimated_calls(trimmed, 1, 8) <= budget
    assert set(trimmed.families) == {"daily", "newer", "rare"}  # was the daily task alone
