"""Nights after the learned text reached its size budget (``train.max_learned_chars``).

Found by simulating four months of nights with ``auto_adopt``: once the learned block reached
its budget, every later night (70 in a row) ended "the optimizer proposed no edit (it asked for
no change)" while the optimizer did propose edits, which were refused unweighed for their size,
and each night still spent its calls. Nothing told the user the skill had stopped learning, nor
how to let it learn again.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.engine import ProjectState
from tests.longrun._days import Developer

BUDGET = 300  # characters: the first adopt leaves too little room for another line


def _refused_for_size(state: ProjectState, night_id: str) -> bool:
    history = state.night_dir(night_id) / "target-00" / "history.json"
    steps = json.loads(history.read_text()) if history.is_file() else []
    return any("over its budget" in str(step.get("decision", "")) for step in steps)


def test_every_night_at_the_size_budget_says_why_it_learned_nothing(tmp_path: Path) -> None:
    developer = Developer(tmp_path, new_task_every=1)
    state = ProjectState(developer.project)
    full = []
    for n in range(6):
        developer.day(n)
        report = developer.night(n, **{"night.auto_adopt": True, "train.max_learned_chars": BUDGET})
        if _refused_for_size(state, report.night_id):
            assert not report.accepted
            full.append(report)
    assert len(full) >= 3, [r.message for r in full]  # it learned once, then stopped
    for report in full:
        assert "train.max_learned_chars" in report.message, report.message  # was: no word of it
        assert f"of train.max_learned_chars = {BUDGET} characters" in report.message
        assert "proposed no edit" not in report.message, report.message
        assert report.message.count("train.max_learned_chars =") == 1, report.message
