"""A full night on the genuine transcripts with the mock backend: stage, adopt, roll back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_core.errors import EXIT_BUSY, BusyError, DriftError, UsageError
from skillopt_sleep.engine import (
    ProjectState,
    adopt,
    list_proposals,
    load_config,
    reject,
    rollback,
    run_night,
    status,
)
from skillopt_sleep.skills.learned import OPEN
from tests.engine._world import World

USER_SKILL = (
    "---\nname: login-tests\ndescription: Fix failing login tests in tests/test_auth.py\n---\n"
    "# Login tests\r\nRun the auth suite first.\r\n"
)


def _night(world: World, project: Path, **extra: object):
    return run_night(project, load_config(project, world.overrides(**extra)), home=world.home)


def test_a_night_stages_adopts_and_rolls_back(world: World) -> None:
    report = _night(world, world.webapp)
    assert report.outcome == "staged" and report.proposal
    assert any("login test" in " ".join(f.examples) for f in report.families)
    assert report.accepted and all(e.delta > 0 for e in report.accepted)
    (change,) = report.changes
    assert change.val_after > change.val_before and change.created
    staged = Path(report.proposal_dir)
    for name in ("manifest.json", "diff.patch", "report.md", "report.json", "report.html"):
        assert (staged / name).is_file(), name
    assert "session cookie" in (staged / "diff.patch").read_text()
    live = Path(change.path)
    assert not live.exists()  # nothing live changes before adoption

    adopt(world.webapp, report.proposal)
    text = live.read_text(encoding="utf-8")
    assert (
        OPEN in text and "session cookie" in text and text.startswith("---\nname: skillopt-learned")
    )
    rollback(world.webapp, report.proposal)
    assert not live.exists() and not live.parent.exists()
    assert [p.state for p in list_proposals(world.webapp)] == ["rolled back"]


def test_user_skill_text_is_preserved_byte_for_byte(world: World) -> None:
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(USER_SKILL.encode())
    report = _night(world, world.webapp)
    routed = {f.skill for f in report.families if "login" in " ".join(f.examples)}
    assert routed == {str(skill)}
    adopt(world.webapp)
    after = skill.read_bytes()
    assert after.startswith(USER_SKILL.encode()) and b"session cookie" in after
    rollback(world.webapp)
    assert skill.read_bytes() == USER_SKILL.encode()


def test_adopt_refuses_a_drifted_live_file(world: World) -> None:
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(USER_SKILL, encoding="utf-8")
    report = _night(world, world.webapp)
    skill.write_text(USER_SKILL + "edited by hand\n", encoding="utf-8")
    with pytest.raises(DriftError):
        adopt(world.webapp, report.proposal)
    assert skill.read_text(encoding="utf-8").endswith("edited by hand\n")
    adopt(world.webapp, report.proposal, force=True)
    assert b"session cookie" in skill.read_bytes()


def test_nothing_new_is_fast_and_calls_no_model(world: World) -> None:
    _night(world, world.webapp)
    again = _night(world, world.webapp)
    assert again.outcome == "nothing new" and again.usage.calls == 0
    history = status(world.webapp).nights
    assert [n.outcome for n in history] == ["staged", "nothing new"]
    assert [p.id for p in status(world.webapp).pending]  # the earlier proposal stays visible


def test_dry_run_stages_nothing_and_advances_nothing(world: World) -> None:
    config = load_config(world.webapp, world.overrides())
    report = run_night(world.webapp, config, dry_run=True, home=world.home)
    assert report.outcome == "dry run" and not report.proposal and report.usage.calls > 0
    assert list_proposals(world.webapp) == []
    assert _night(world, world.webapp).outcome == "staged"  # the sessions were not consumed


def test_reject_blocks_the_edits_for_later_nights(world: World) -> None:
    report = _night(world, world.webapp)
    reject(world.webapp, report.proposal)
    state = ProjectState(world.webapp)
    carry = json.loads(state.optimizer_path.read_text())
    (entry,) = carry.values()
    contents = {r["edit"]["content"] for r in entry["rejected"] if r["step"] == -1}
    assert contents == {e.content for e in report.accepted}
    with pytest.raises(UsageError):
        adopt(world.webapp, report.proposal)


def test_a_rolled_back_proposals_edits_are_kept_from_later_nights(world: World) -> None:
    """Rolling back says "not this" as clearly as reject; the edits never reached the rejected-
    edit buffer, so a later night with new sessions staged them again, word for word."""
    first = _night(world, world.webapp)
    adopt(world.webapp, first.proposal)
    rollback(world.webapp, first.proposal)
    carry = json.loads(ProjectState(world.webapp).optimizer_path.read_text())
    refused = {
        r["edit"]["content"]
        for entry in carry.values()
        for r in entry["rejected"]
        if r["edit"]["rationale"].startswith("rolled back by the user")
    }
    assert refused and refused == {e.content for e in first.accepted}


def test_a_night_never_grows_the_learned_text_past_its_budget(world: World) -> None:
    report = _night(world, world.webapp, **{"train.max_learned_chars": 1})
    assert report.outcome == "no change" and not report.accepted, report.message
    assert not any(e.accepted for e in report.edits)  # refused unweighed, so none blamed
    decisions = [
        step.get("decision", "")
        for path in ProjectState(world.webapp).root.glob("nights/*/**/history.json")
        for step in json.loads(path.read_text())
    ]
    assert any("over its budget" in d for d in decisions), decisions


def test_a_second_night_at_once_is_refused(world: World) -> None:
    state = ProjectState(world.webapp)
    with state.night_lock(), pytest.raises(BusyError) as caught:
        _night(world, world.webapp)
    assert caught.value.exit_code == EXIT_BUSY and "pid" in str(caught.value)
    assert status(world.webapp).running is None


def test_state_is_private(world: World) -> None:
    _night(world, world.webapp)
    root = ProjectState(world.webapp).root
    assert root.stat().st_mode & 0o077 == 0
    state = ProjectState(world.webapp)
    for path in (
        root / "optimizer.json",
        root / "history.jsonl",
        root / "project.json",
        state.archive_path,
        state.index_path,
    ):
        assert path.stat().st_mode & 0o077 == 0, path


def test_tonight_is_sized_to_the_call_budget(world: World) -> None:
    report = _night(world, world.webapp, **{"budget.max_calls": 25, "night.samples": 2})
    assert 0 < report.usage.calls <= 25
    with pytest.raises(UsageError, match=r"a call budget of 3 cannot cover") as caught:
        _night(world, world.reading, **{"budget.max_calls": 3})
    assert "--max-calls" in caught.value.hint  # the flag is named too, not only the config key


def test_memory_file_on_request(world: World) -> None:
    memory = world.webapp / "CLAUDE.md"
    memory.write_bytes(b"# Webapp\n\nUse make test.\n")
    report = _night(world, world.webapp, **{"night.memory": True})
    assert [(c.path, c.kind) for c in report.changes] == [(str(memory), "memory")]
    adopt(world.webapp)
    text = memory.read_bytes()
    assert text.startswith(b"# Webapp\n\nUse make test.\n") and OPEN.encode() in text


def test_old_night_directories_are_pruned(tmp_path: Path) -> None:
    state = ProjectState(tmp_path / "p", root=tmp_path / "state")
    for n in range(5):
        (state.night_dir(f"2026110{n}-000000") / "target-00").mkdir(parents=True)
        (state.night_dir(f"2026110{n}-000000") / "report.json").write_text("{}")  # finished
    removed = state.prune_nights(keep=2)
    assert [p.name for p in removed] == ["20261100-000000", "20261101-000000", "20261102-000000"]
    assert sorted(p.name for p in (state.root / "nights").iterdir()) == [
        "20261103-000000",
        "20261104-000000",
    ]


def test_each_change_names_its_staged_file(world: World) -> None:
    import hashlib

    report = _night(world, world.webapp)
    (change,) = report.changes
    staged = Path(report.proposal_dir) / change.staged_file
    assert change.staged_file.startswith("files/")
    assert hashlib.sha256(staged.read_bytes()).hexdigest() == change.proposed_sha256


def test_two_nights_in_one_second_keep_their_own_folders(world: World) -> None:
    """Night ids were the start second: a second night within it wrote into the first one's
    folders (its report.json, its staged proposal)."""
    from datetime import datetime, timezone

    moment = datetime(2026, 11, 27, 3, 17, 0, tzinfo=timezone.utc)
    config = load_config(world.webapp, world.overrides())
    first = run_night(world.webapp, config, home=world.home, now=moment)
    second = run_night(world.webapp, config, home=world.home, now=moment)
    assert first.night_id == "20261127-031700" and second.night_id == "20261127-031700-2"
    state = ProjectState(world.webapp)
    first_report = json.loads((state.night_dir(first.night_id) / "report.json").read_text())
    assert first_report["outcome"] == first.outcome
    assert state.night_dir(second.night_id).is_dir()


def test_auto_adopt_over_a_file_changed_during_the_night_leaves_it_pending(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adopt's refusal aborted the night after staging: no history line, the harvest index
    not committed (the sessions read again), the night's optimizer memory lost."""
    from skillopt_sleep.engine import reporting

    staged = reporting.stage_report

    def stage_then_edit(state, report, runs):  # the user saves the skill as the night stages
        done = staged(state, report, runs)
        for change in done.changes:
            live = Path(change.path)  # here a new file: the user created it meanwhile
            live.parent.mkdir(parents=True, exist_ok=True)
            live.write_text("my own line\n")
        return done

    monkeypatch.setattr(reporting, "stage_report", stage_then_edit)
    report = _night(world, world.webapp, **{"night.auto_adopt": True})
    assert report.outcome == "staged" and "not adopted" in report.message, report.message
    assert f"skillopt-sleep adopt {report.proposal}" in report.message
    (pending,) = list_proposals(world.webapp)
    assert pending.state == "pending" and pending.id == report.proposal
    state = ProjectState(world.webapp)
    assert state.optimizer_path.is_file()
    assert json.loads(state.history_path.read_text().splitlines()[-1])["outcome"] == "staged"
    monkeypatch.setattr(reporting, "stage_report", staged)
    assert _night(world, world.webapp).sessions == 0  # the night's sessions were consumed


class _Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs, no handler catches it."""


def test_rollback_after_a_killed_rollback_says_it_is_done(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next command finished the killed rollback, then this one said "no adopted proposal"
    with exit 2 and a fix about the next night."""
    from skillopt_sleep.stage import transaction

    report = _night(world, world.webapp)
    adopt(world.webapp, report.proposal)

    def killed(*_: object, **__: object) -> None:
        raise _Killed

    with monkeypatch.context() as patch:
        patch.setattr(transaction, "_restore", killed)
        with pytest.raises(_Killed):
            rollback(world.webapp, report.proposal)
    result = rollback(world.webapp, report.proposal)
    assert result.action == "rolled back" and result.proposal == report.proposal
    assert "interrupted rollback" in result.message
    (settled,) = list_proposals(world.webapp)
    assert settled.state == "rolled back"


def test_a_night_on_a_given_clock_reports_how_long_it_really_took(world: World) -> None:
    """``now`` (the demo's simulated days, a test) set the start; the finish was the real clock,
    so the demo's reports read "took 122427 min 2 s"."""
    from datetime import datetime, timedelta, timezone

    moment = datetime(2026, 9, 4, 3, 0, 0, tzinfo=timezone.utc)
    config = load_config(world.webapp, world.overrides())
    report = run_night(world.webapp, config, home=world.home, now=moment)
    finished = datetime.fromisoformat(report.finished_at)
    assert moment <= finished < moment + timedelta(minutes=5)
    # and its proposal is stamped on that clock too (it said the real day, months later)
    (shown,) = list_proposals(world.webapp)
    assert report.proposal and shown.created_at == report.finished_at
