"""Real mock nights keep their growing stores bounded (see ``test_retention_growth``), with the
caps made small so that a few nights reach them: the history, the harvest index's night rows
and the archive's cached family verdicts stop growing, and what the readers need is still there.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.engine import ProjectState, finish, gather, status
from skillopt_sleep.engine.state import read_lines
from skillopt_sleep.harvest import _index_retention
from skillopt_sleep.harvest._index import HarvestIndex
from skillopt_sleep.mine import _retention
from tests._guard import StandIns
from tests.longrun._days import START, Developer

NIGHTS = 8


@pytest.fixture(autouse=True)
def _scheduler(fake_scheduler: StandIns) -> None:
    """``status`` asks the scheduler about a project with no schedule record."""


def _table(state: ProjectState, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(state.archive_path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_nights_keep_their_stores_bounded_and_what_readers_need(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finish, "HISTORY_KEEP", 3)
    monkeypatch.setattr(finish, "HISTORY_SLACK", 1)
    monkeypatch.setattr(_index_retention, "NIGHT_ROWS", 2)
    monkeypatch.setattr(_retention, "CONFIRM_KEEP_RUNS", 1)
    monkeypatch.setattr(_retention, "CONFIRM_CAP", 0)
    developer = Developer(tmp_path, new_task_every=1)
    state = ProjectState(developer.project)
    ids = []
    for n in range(NIGHTS):
        developer.day(n)
        report = developer.night(n)
        assert report.sessions > 0, report.message  # each night's window reads its new day
        ids.append(report.night_id)

    history = read_lines(state.history_path)
    assert len(history) <= 1 + 3 + 1  # the first night, the last three, the slack
    assert [r["night_id"] for r in history][-3:] == ids[-3:]
    assert history[0]["night_id"] == ids[0]  # the harvest window still starts from it
    began = gather.nights_began(state, START.replace(year=2027))
    assert began is not None and began.isoformat() == history[0]["started_at"]
    shown = status(developer.project).nights
    assert [n.night_id for n in shown][-3:] == ids[-3:]

    with HarvestIndex.for_state_dir(state.root) as index:
        index.bind(str(developer.project))
        assert index.finished_nights() == set(ids[-2:])

    # every family changes every night here (a new request joins it): only the verdicts the
    # last night asked about are left, and each of them is there
    used = _table(state, "SELECT family_hash, run FROM confirmations_used")
    verdicts = _table(state, "SELECT family_hash FROM confirmations")
    last = max(run for _, run in used)
    assert verdicts and {h for (h,) in verdicts} == {h for h, run in used if run == last}
    assert len(verdicts) < NIGHTS  # 22 before: every night's families, forever

    developer.day(NIGHTS)  # and a night after the trims reads its day and mines it
    report = developer.night(NIGHTS)
    assert report.sessions > 0 and report.tasks > 0, report.message
