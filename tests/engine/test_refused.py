"""`refused`: what the rejected-edit buffers keep from later nights, and `refused forget`.

Found by simulating 120 nights: a user who rolled back often stopped the project learning
(after night 52 every edit a night came up with had been refused before), and could neither
see what was blocked nor lift a refusal short of editing ``optimizer.json`` by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_BUSY, EXIT_USAGE, BusyError, UsageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, reject, rollback
from skillopt_sleep.engine.api import forget_refused, refused
from skillopt_sleep.stage.refused import RefusedEdit, edit_id
from tests.longrun._days import Developer
from tests.longrun._staging import new_skill, stage_adding

GENERAL = "- In every answer, whatever the request:"  # a rule the mock optimizer generalises
MARKUP = "- Use [bold red]LOUD[/] and [link=https://x.example]here[/link] :smile:"
FIELDS = {"id", "skill", "by", "op", "anchor", "content", "rationale", "blocks", "delta"}


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return new_skill(tmp_path)


def _stage(skill: Path, night: int, *lines: str) -> str:
    return stage_adding(skill, night, *lines, rationale="the judge asked")


def _project(skill: Path) -> Path:
    return skill.parents[3]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def _first_night(tmp_path: Path) -> tuple[Developer, Any]:
    """Three days of sessions and the night after them: it stages two edits, and its gate
    rejects one on its own."""
    developer = Developer(tmp_path, new_task_every=1)
    for day in range(3):
        developer.day(day)
    report = developer.night(2)
    assert report.outcome == "staged" and len(report.accepted) == 2, report.message
    return developer, report


def test_a_rejected_nights_edits_are_listed_as_yours_beside_the_gates(tmp_path: Path) -> None:
    developer, report = _first_night(tmp_path)
    assert refused(developer.project, by="you") == ()
    gate = refused(developer.project)
    assert gate and {e.by for e in gate} == {"the gate"}
    assert all(e.delta is not None and e.delta < 0 and e.blocks for e in gate)

    reject(developer.project, report.proposal)
    listed = refused(developer.project)
    yours = [e for e in listed if e.by_user]
    assert {e.content for e in yours} == {e.content for e in report.accepted}
    assert {e.by for e in yours} == {"you: rejected"} and all(e.blocks for e in yours)
    assert all(e.delta is None for e in yours)
    assert {(e.content, e.rationale) for e in yours} == {
        (a.content, a.rationale) for a in report.accepted
    }  # the optimizer's reason, without "rejected by the user: "
    assert [e for e in listed if not e.by_user] == list(gate)  # the gate's stay as they were
    (skill,) = json.loads(ProjectState(developer.project).optimizer_path.read_text())
    assert {e.skill for e in listed} == {skill}


def test_a_rolled_back_proposals_edits_are_listed_as_rolled_back(skill: Path) -> None:
    project = _project(skill)
    night = _stage(skill, 5, "- cite the ticket", "- name the release")
    adopt(project, night)
    rollback(project, night)
    listed = refused(project)
    assert [(e.by, e.content) for e in listed] == [
        ("you: rolled back", "- cite the ticket"),
        ("you: rolled back", "- name the release"),
    ]
    assert listed[0].skill == str(skill) and listed[0].op == "add" and listed[0].anchor == ""
    assert listed[0].rationale == "the judge asked"  # without the "rolled back by" prefix


def test_ids_are_short_stable_and_the_same_in_another_process(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket"))
    (first,) = refused(project)
    assert len(first.id) == 10 and int(first.id, 16) >= 0
    assert first.id == edit_id(str(skill), ("add", "", "- cite the ticket"))
    reject(project, _stage(skill, 6, "- name  the release"))  # another refusal comes after it
    assert refused(project)[0] == first
    out = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "refused", "-p", str(project), "--json"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "random"},
    ).stdout
    assert [e["id"] for e in json.loads(out)] == [e.id for e in refused(project)]


def test_an_edit_the_gate_and_then_you_refused_is_one_edit_and_forgotten_whole(
    skill: Path,
) -> None:
    project = _project(skill)
    state = ProjectState(project)
    gate = {"op": "add", "anchor": "", "content": "- cite  the ticket", "rationale": "r",
            "support": 1, "source": "failure"}  # fmt: skip
    carry = {str(skill): {"rejected": [{"edit": gate, "delta": -0.25, "step": 3, "alone": False}],
                          "meta_notes": "keep me", "nights": 4}}  # fmt: skip
    state.ensure()
    state.optimizer_path.write_text(json.dumps(carry))
    (warned,) = refused(project)
    assert warned.by == "the gate" and not warned.blocks  # rejected once in a bundle: a warning
    reject(project, _stage(skill, 5, "- cite the ticket"))
    (both,) = refused(project)
    assert both.id == warned.id and both.by == "you: rejected" and both.blocks
    assert both.delta == -0.25  # the gate's, which the user's refusal has none of
    forgotten = forget_refused(project, [both.id]).forgotten
    assert [e.id for e in forgotten] == [both.id]
    kept = json.loads(state.optimizer_path.read_text())[str(skill)]
    assert kept == {"rejected": [], "meta_notes": "keep me", "nights": 4}


def test_a_forgotten_edit_is_proposed_again_by_a_later_night(tmp_path: Path) -> None:
    """One recurring task: every night comes up with the same general rule. Rejected, the next
    night leaves it out; forgotten, the night after proposes it again, word for word."""
    developer = Developer(tmp_path, new_task_every=100)
    for day in range(3):
        developer.day(day)
    first = developer.night(2)
    (rule,) = [e.content for e in first.accepted if e.content.startswith(GENERAL)]
    reject(developer.project, first.proposal)
    developer.day(3)
    assert rule not in {e.content for e in developer.night(3).edits}  # refused: never proposed
    yours = refused(developer.project, by="you")
    (general,) = [e for e in yours if e.content == rule]
    (other,) = [e for e in yours if e.content != rule]

    code, out, err = _invoke("refused", "forget", general.id, "-p", str(developer.project))
    assert code == 0, err
    assert f"forgot 1 refused edit; a later night may propose it again:\n  {general.id}" in out
    carry = json.loads(ProjectState(developer.project).optimizer_path.read_text())
    carried = {r["edit"]["content"] for kept in carry.values() for r in kept["rejected"]}
    assert rule not in carried and other.content in carried
    assert [e.id for e in refused(developer.project, by="you")] == [other.id]

    developer.day(4)
    again = developer.night(4)
    assert rule in {e.content for e in again.accepted}, again.message


def test_forget_all_and_forget_all_of_yours(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket"))
    state = ProjectState(project)
    carry = json.loads(state.optimizer_path.read_text())
    gate = {"op": "delete", "anchor": "old", "content": "", "rationale": "r", "support": 1,
            "source": "failure"}  # fmt: skip
    carry[str(skill)]["rejected"].append({"edit": gate, "delta": -0.5, "step": 0, "alone": True})
    carry[str(skill)]["rejected"].append({"edit": {"anchor": "no op"}, "step": 0})  # damaged
    state.optimizer_path.write_text(json.dumps(carry))

    result = forget_refused(project, all_=True, by="you")
    assert [e.by for e in result.forgotten] == ["you: rejected"]
    assert [e.by for e in refused(project)] == ["the gate"]
    code, out, err = _invoke("refused", "forget", "--all", "-p", str(project), "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert [e["op"] for e in shown["forgotten"]] == ["delete"] and shown["message"] == ""
    assert refused(project) == ()
    left = json.loads(state.optimizer_path.read_text())[str(skill)]["rejected"]
    assert left == [{"edit": {"anchor": "no op"}, "step": 0}]  # what it cannot read stays
    code, out, _ = _invoke("refused", "forget", "--all", "-p", str(project))
    assert code == 0 and "nothing to forget" in out


def test_an_unknown_id_forgets_nothing_and_says_how_to_list_them(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket"))
    (known,) = refused(project)
    before = ProjectState(project).optimizer_path.read_bytes()
    with pytest.raises(UsageError) as caught:
        forget_refused(project, [known.id, "deadbeef00"])
    assert "'deadbeef00'" in caught.value.message and "skillopt-sleep refused" in caught.value.hint
    assert ProjectState(project).optimizer_path.read_bytes() == before  # all or nothing
    code, _, err = _invoke("refused", "forget", "nope", "-p", str(project))
    assert code == EXIT_USAGE and "'nope'" in err and "skillopt-sleep refused" in err
    for args in ([], [known.id, "--all"], ["--by", "you", known.id]):
        code, _, err = _invoke("refused", "forget", *args, "-p", str(project))
        assert code == EXIT_USAGE and "fix:" in err, (args, err)
    code, _, err = _invoke("refused", "--by", "them", "-p", str(project))
    assert code == EXIT_USAGE and "you or gate" in err
    assert ProjectState(project).optimizer_path.read_bytes() == before


def test_forget_is_busy_while_a_night_holds_the_project(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket"))
    (known,) = refused(project)
    with ProjectState(project).night_lock():
        with pytest.raises(BusyError):
            forget_refused(project, [known.id])
        code, _, err = _invoke("refused", "forget", known.id, "-p", str(project))
        assert code == EXIT_BUSY and "pid" in err
        code, out, _ = _invoke("refused", "-p", str(project), "--json")  # reading waits for none
        assert code == 0 and [e["id"] for e in json.loads(out)] == [known.id]
    assert refused(project) == (known,)


def test_json_is_an_array_of_every_field(skill: Path) -> None:
    project = _project(skill)
    code, out, _ = _invoke("refused", "-p", str(project), "--json")
    assert code == 0 and json.loads(out) == []
    assert not ProjectState(project).root.exists()  # listing creates no state
    reject(project, _stage(skill, 5, "- cite the ticket"))
    code, out, err = _invoke("refused", "-p", str(project), "--json")
    assert code == 0, err
    (entry,) = json.loads(out)
    assert set(entry) == FIELDS
    assert entry["by"] == "you: rejected" and entry["delta"] is None and entry["blocks"] is True
    code, out, _ = _invoke("refused", "--json", "-p", str(project), "forget", entry["id"])
    assert code == 0 and json.loads(out)["forgotten"][0]["id"] == entry["id"]  # group's flags


def test_markup_in_an_edit_is_printed_as_written(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, MARKUP))
    (edit,) = refused(project)
    code, out, err = _invoke("refused", "-p", str(project))
    assert code == 0, err
    assert MARKUP in out and "you: rejected" in out and edit.id in out
    assert "refused forget ID" in out
    code, out, _ = _invoke("refused", "forget", edit.id, "-p", str(project))
    assert code == 0 and MARKUP in out


def test_a_narrow_terminal_gets_one_line_an_edit(skill: Path) -> None:
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket " + "and more " * 8))
    (edit,) = refused(project)
    result = CliRunner().invoke(app, ["refused", "-p", str(project)], env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.stderr
    assert f"  {edit.id}  you: rejected  add: - cite the ticket" in result.stdout


def test_a_refused_edit_is_a_frozen_record() -> None:
    edit = RefusedEdit("0123456789", "s", "the gate", "add", "", "x", "", True, -0.1)
    with pytest.raises(AttributeError):
        edit.id = "x"  # type: ignore[misc]


def test_the_groups_by_reaches_forget_and_is_said_when_nothing_matches(skill: Path) -> None:
    """`refused --by gate forget --all` forgot the user's refusals too: the group's --by was
    dropped on the way to `forget`. An empty list said "no refused edits" whatever --by chose."""
    project = _project(skill)
    reject(project, _stage(skill, 5, "- cite the ticket"))
    code, out, err = _invoke("refused", "-p", str(project), "--by", "gate", "forget", "--all")
    assert code == 0, err
    assert "nothing to forget: no edit of the gate's is refused" in out
    assert [e.by for e in refused(project)] == ["you: rejected"]  # kept for good
    code, out, _ = _invoke("refused", "-p", str(project), "--by", "gate")
    assert code == 0 and "no refused edits of the gate's" in out


def test_a_delta_that_is_missing_or_not_a_number_is_null(skill: Path) -> None:
    project = _project(skill)
    state = ProjectState(project)
    state.optimizer_path.parent.mkdir(parents=True, exist_ok=True)
    edit = {"op": "add", "anchor": "", "content": "- x", "rationale": "r"}
    entries = [
        {"edit": {**edit, "content": c}, "delta": d, "step": 1, "alone": True}
        for c, d in (("- nan", float("nan")), ("- text", "0.5"), ("- inf", float("inf")))
    ]
    entries.append({"edit": {**edit, "content": "- none"}, "step": 1, "alone": True})
    state.optimizer_path.write_text(json.dumps({str(skill): {"rejected": entries}}))  # NaN kept
    assert [e.delta for e in refused(project)] == [None] * 4
    code, out, err = _invoke("refused", "-p", str(project), "--json")
    assert code == 0, err
    strict = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is no JSON"))
    assert [e["delta"] for e in strict] == [None] * 4


def test_json_on_the_terminal_writes_the_characters_a_terminal_acts_on_as_escapes(
    skill: Path,
) -> None:
    """U+009B (an escape sequence's start) and U+202E (a bidi override) in a model's edit reached
    the terminal raw through --json; the table escaped them."""
    project = _project(skill)
    hostile = "- x\x9b31mRED \u202eevil \u4e2d"
    reject(project, _stage(skill, 5, hostile))
    code, out, err = _invoke("refused", "-p", str(project), "--json")
    assert code == 0, err
    assert "\x9b" not in out and "\u202e" not in out and "\u4e2d" in out
    assert [e["content"] for e in json.loads(out)] == [hostile]
