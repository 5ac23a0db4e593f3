"""A project whose every idea was refused before stops learning: found in 120 simulated nights,
where after night 52 each night said only "the optimizer proposed no edit (it asked for no
change)". The night now says that what it came up with was refused, and how to lift a refusal."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.engine import reject
from skillopt_sleep.engine.api import forget_refused, refused
from skillopt_sleep.engine.consolidate import _refused_before
from tests.longrun._days import Developer

WAY_OUT = "`skillopt-sleep refused` lists them"


def test_a_night_with_every_idea_refused_says_so_and_how_to_lift_one(tmp_path: Path) -> None:
    developer = Developer(tmp_path, new_task_every=100)  # one recurring task: few ideas
    for day in range(3):
        developer.day(day)
    report = developer.night(2)
    for night in range(3, 8):
        if report.proposal:
            reject(developer.project, report.proposal)
        developer.day(night)
        report = developer.night(night)
        if report.outcome == "no change":
            break
    assert report.outcome == "no change" and not report.edits
    assert report.message.startswith("nothing new to try: "), report.message
    assert "the optimizer proposed no edit" in report.message and WAY_OUT in report.message
    forget_refused(developer.project, all_=True)
    assert refused(developer.project) == ()
    developer.day(9)
    again = developer.night(9)
    assert again.outcome == "staged", again.message


def test_every_proposed_edit_refused_before_is_named_as_such() -> None:
    history = [{"proposed": 3, "refused_before": 3}, {"proposed": 2, "refused_before": 2}]
    assert _refused_before(history, ()) == (
        f"every edit the optimizer proposed (5) was refused before: {WAY_OUT}, and "
        "`skillopt-sleep refused forget ID` lets a night propose one again"
    )
    assert _refused_before([{"proposed": 3, "refused_before": 2}], ()) == ""  # one was new
    assert _refused_before([{"proposed": 0, "failures": 2}], ()) == ""  # nothing refused
    blocked = [{"edit": {"op": "add", "anchor": "", "content": "- x"}, "delta": -0.1,
                "step": 1, "alone": True}]  # fmt: skip
    failing = [{"proposed": 0, "failures": 2}]
    assert "1 edit it came up with before is refused" in _refused_before(failing, blocked)
    # every task passed: nothing to learn, whatever was refused before (it said "nothing new
    # to try" of a skill already perfect, in run and dry-run)
    assert _refused_before([{"proposed": 0, "failures": 0}], blocked) == ""
