"""A backend that degrades in the middle of a night: healthy for the first calls, then empty
replies, refusals, 5xx, an unusable judge. The night stops with a clear error (or says what it
did), stages nothing it did not validate on real answers, leaves the live files and the carried
state alone, and the next healthy night reads the same sessions again."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.backends import BackendError, BudgetExceeded
from skillopt_core.backends.budget import Totals
from skillopt_core.errors import EXIT_NO_EVIDENCE, NoEvidenceError
from skillopt_core.optim.slow import meta_update
from skillopt_core.testing import FakeModelServer, Fault, ScriptedBackend, Step
from skillopt_sleep.engine import list_proposals, load_config, run_night
from skillopt_sleep.engine.reporting import Basics, stopped_night, summary_line
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.records import Task
from skillopt_sleep.replay import NightEnvironment, task_item
from tests._guard import StandIns
from tests.engine._world import World
from tests.engine.test_night_backends import responder as healthy  # the same tiny world

USER_SKILL = b"---\nname: login-tests\ndescription: Fix failing login tests\n---\nmine\n"
OPTIMIZER = "You are the optimizer of a skill document"
Responder = Callable[[Mapping[str, Any]], Step]


def after_reflection(broken: Step) -> Responder:
    """Healthy until the optimizer has proposed its edit, then the target answers ``broken``:
    the gate's validation replays are the first to meet the broken backend."""
    reflected = [False]

    def responder(body: Mapping[str, Any]) -> Step:
        text = json.dumps(body)
        if OPTIMIZER in text:
            reflected[0] = True
            return healthy(body)
        return broken if reflected[0] else healthy(body)

    return responder


def _night(
    world: World, responder: Responder, monkeypatch: pytest.MonkeyPatch, **extra: object
) -> Any:
    with FakeModelServer(responder) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        options = {"max_retries": 1, "retry_base_s": 0.01, "retry_cap_s": 0.01}
        overrides = {
            "backends.optimizer": "openai:m",
            "backends.target": "openai:m",
            "backends.options": options,
            **extra,
        }
        config = load_config(world.webapp, world.overrides(**overrides))
        return run_night(world.webapp, config, home=world.home)


def _user_skill(world: World) -> Path:
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(USER_SKILL)
    return skill


def _expect_nothing_kept(world: World, skill: Path) -> None:
    state = ProjectState(world.webapp)
    assert list_proposals(world.webapp) == []
    assert skill.read_bytes() == USER_SKILL
    assert not state.optimizer_path.exists()  # no rejected edit carried to later nights


@pytest.mark.parametrize("broken", ["", "I can't help with that."], ids=["empty", "refusal"])
def test_a_target_that_stops_answering_after_the_reflection_stops_the_night(
    world: World, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    """It used to end as "no edit improved the validation score", with the good edit put in
    the rejected buffer for ever and tonight's sessions consumed."""
    skill = _user_skill(world)
    with pytest.raises(NoEvidenceError) as caught:
        _night(world, after_reflection(broken), monkeypatch)
    assert caught.value.exit_code == EXIT_NO_EVIDENCE
    assert "part-way through the night" in str(caught.value)
    assert "target openai:m" in str(caught.value) and "nothing was staged" in str(caught.value)
    _expect_nothing_kept(world, skill)

    again = _night(world, healthy, monkeypatch)  # healthy again: the same sessions, the same edit
    assert again.outcome == "staged" and again.sessions == 12
    assert "session cookie" in again.accepted[0].content
    assert skill.read_bytes() == USER_SKILL


def test_an_edit_that_makes_the_target_refuse_is_still_rejected(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refusals caused by the candidate skill are its fault: the target still answers the
    request it answered before, so the night does not stop; the edit is rejected."""

    def responder(body: Mapping[str, Any]) -> Step:
        text = json.dumps(body)
        if OPTIMIZER in text:
            return json.dumps({"edits": [{"op": "add", "anchor": "", "content": "- Decline."}]})
        if "- Decline." in text:
            return "I can't help with that."
        return healthy(body)

    report = _night(world, responder, monkeypatch)
    assert report.outcome == "no change"
    assert [e.content for e in report.edits if not e.accepted] == ["- Decline."]


def test_a_target_failing_with_5xx_mid_night_names_the_role_and_keeps_the_sessions(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _user_skill(world)
    with pytest.raises(BackendError) as caught:
        _night(world, after_reflection(Fault.server_error(503)), monkeypatch)
    text = str(caught.value)
    assert "target openai:m (replay): gave up after 2 attempts" in text and "503" in text
    assert "--workers" not in text and "concurrency" in text  # no such flag on skillopt-sleep
    _expect_nothing_kept(world, skill)
    assert _night(world, healthy, monkeypatch).sessions == 12


def test_an_empty_meta_reply_keeps_the_notes_carried_from_earlier_nights(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _user_skill(world)
    state = ProjectState(world.webapp).ensure()
    notes = "- Edits naming the exact cookie help."
    carried = {str(skill): {"rejected": [], "meta_notes": notes, "nights": 3}}
    state.optimizer_path.write_text(json.dumps(carried), encoding="utf-8")

    def responder(body: Mapping[str, Any]) -> Step:
        return "" if "private notebook" in json.dumps(body) else healthy(body)

    assert _night(world, responder, monkeypatch).outcome == "staged"
    saved = json.loads(state.optimizer_path.read_text(encoding="utf-8"))
    assert saved[str(skill)]["meta_notes"] == notes


@pytest.mark.parametrize("reply", ["", "  \n", "I'm unable to help with that."])
def test_meta_update_keeps_the_previous_notes_on_a_non_answer(reply: str) -> None:
    notes = meta_update(ScriptedBackend(reply), "- old notes", [], [])
    assert notes == "- old notes"
    assert meta_update(ScriptedBackend("- new notes\n"), "- old notes", [], []) == "- new notes"


def _judged(world: World, monkeypatch: pytest.MonkeyPatch, verdicts: int) -> Any:
    """A night with a judge that gives ``verdicts`` usable verdicts, then only empty replies."""
    given = [0]

    def responder(body: Mapping[str, Any]) -> Step:
        text = json.dumps(body)
        if "Judge whether the answer accomplishes" in text:
            given[0] += 1
            if given[0] > verdicts:
                return ""
            passed = "session cookie" in text.split("## Answer")[-1]
            return json.dumps({"pass": passed, "score": float(passed), "reason": "checked"})
        return healthy(body)

    return _night(world, responder, monkeypatch, **{"backends.judge": "openai:m"})


def test_a_judge_that_never_gives_a_verdict_stops_the_night(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rubric task used to score 0, so the night ended as "no edit improved"."""
    skill = _user_skill(world)
    with pytest.raises(NoEvidenceError, match="verdicts of the judge openai:m were unusable"):
        _judged(world, monkeypatch, verdicts=0)
    _expect_nothing_kept(world, skill)


def test_a_judge_that_stops_answering_part_way_stops_the_night(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _user_skill(world)
    with pytest.raises(NoEvidenceError, match="part-way through the night") as caught:
        _judged(world, monkeypatch, verdicts=4)
    assert "judge openai:m" in str(caught.value)
    _expect_nothing_kept(world, skill)


def test_replies_that_are_all_unusable_in_two_ways_are_still_all_unusable() -> None:
    task = Task("t1", "f1", "Fix the login test", "")
    env = NightEnvironment({"train": [task]})
    target = ScriptedBackend("", "I cannot help with this.")
    for sample in (0, 1):
        env.rollout("skill", task_item(task), target, sample)
    assert env.unusable_reason() == "empty reply or refusal"


def test_a_stopped_night_reports_why_and_what_it_spent() -> None:
    basics = Basics(
        "20260101-031700",
        "/p",
        "2026-01-01T03:17:00+00:00",
        "2026-01-01T03:18:00+00:00",
        False,
        12,
        20,
        "tfidf",
    )
    error = BudgetExceeded("target openai:m (replay): call budget of 30 reached", hint="raise it")
    spent = Totals(calls=30, input_tokens=900, output_tokens=80, cost_usd=0.0421234567)
    report = stopped_night(basics, None, error, spent, {"harvest": 0.1})
    assert report.outcome == "stopped" and report.proposal == ""
    assert report.message.startswith("stopped: target openai:m (replay): call budget of 30")
    assert "(fix: raise it)" in report.message and "reads these sessions again" in report.message
    line = summary_line(report)
    assert line["outcome"] == "stopped" and line["calls"] == 30
    assert line["cost_usd"] == 0.042123 and line["sessions"] == 12


def test_a_night_of_usable_replies_asks_nothing_again() -> None:
    """The recheck costs a call only on a night that had unusable replies."""
    task = Task("t1", "f1", "Fix the login test", "")
    env = NightEnvironment({"train": [task]})
    target = ScriptedBackend("Fixed it.")
    env.rollout("skill", task_item(task), target)
    assert env.changed_reason() == "" and len(target.requests) == 1


def test_a_stopped_night_is_in_the_history_with_its_reason_and_spend(
    world: World, monkeypatch: pytest.MonkeyPatch, fake_scheduler: StandIns
) -> None:
    """A night stopped part-way left no trace: `status` showed the night before as the last,
    and the calls it paid for appeared nowhere."""
    from skillopt_sleep.engine import status

    _user_skill(world)
    with pytest.raises(BackendError):
        _night(world, after_reflection(Fault.server_error(503)), monkeypatch)
    state = ProjectState(world.webapp)
    (line,) = [json.loads(x) for x in state.history_path.read_text().splitlines()]
    assert line["outcome"] == "stopped" and line["sessions"] == 12 and line["calls"] > 0
    assert not line["proposal"]
    assert status(world.webapp).nights[-1].outcome == "stopped"
    said = json.loads((state.night_dir(line["night_id"]) / "report.json").read_text())
    assert said["message"].startswith("stopped: ") and "503" in said["message"]
    again = _night(world, healthy, monkeypatch)  # nothing consumed: the same sessions again
    assert again.outcome == "staged" and again.sessions == 12


def test_a_model_that_sometimes_says_nothing_is_not_a_broken_backend() -> None:
    """One empty answer to the re-asked request stopped a healthy night with exit 7."""
    task = Task("t1", "f1", "Fix the login test", "")
    env = NightEnvironment({"train": [task]})
    target = ScriptedBackend("Fixed it.", "", "", "Fixed it again.")
    env.rollout("skill", task_item(task), target)
    env.rollout("skill", task_item(task), target)
    assert env.changed_reason() == "" and len(target.requests) == 4


def test_a_budget_spent_before_the_recheck_does_not_throw_the_night_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skillopt_sleep.engine import consolidate

    class Spent:
        def changed_reason(self) -> str:
            raise BudgetExceeded("max_calls reached")

    consolidate._guard_unchanged(Spent())  # type: ignore[arg-type]
