"""Rollback (and the recovery of a killed adopt or rollback) removes only the folders the adopt
made: a folder that was there before the adopt stays, even when it is empty again."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.engine.state import append_line
from skillopt_sleep.stage import _live_writes, transaction
from skillopt_sleep.stage.proposal import FileChange, stage

PROPOSAL = "20260101-000000"
NEW = "---\nname: new\ndescription: a new skill\n---\nadvice\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude" / "skills").mkdir(parents=True)
    return root


def _stage_new(project: Path, *skills: Path) -> None:
    """A pending proposal that creates each of ``skills`` (none exists yet)."""
    changes = [FileChange(skill, "skill", None, NEW, 1) for skill in skills]
    stage(ProjectState(project), PROPOSAL, changes, {})


def test_a_folder_that_was_there_before_the_adopt_survives_rollback(project: Path) -> None:
    empty = project / ".claude" / "skills" / "kept"
    empty.mkdir()
    _stage_new(project, empty / "SKILL.md")
    adopt(project, PROPOSAL)
    assert (empty / "SKILL.md").read_text() == NEW
    rollback(project, PROPOSAL)
    assert not (empty / "SKILL.md").exists()
    assert empty.is_dir()


def test_rollback_removes_every_folder_the_adopt_created_deepest_first(project: Path) -> None:
    skills = project / ".claude" / "skills"
    made = skills / "team" / "deploy"
    _stage_new(project, made / "SKILL.md", skills / "team" / "review" / "SKILL.md")
    adopt(project, PROPOSAL)
    assert (made / "SKILL.md").read_text() == NEW
    rollback(project, PROPOSAL)
    assert not (skills / "team").exists()
    assert skills.is_dir()  # there before the adopt


def test_a_created_folder_the_user_filled_since_stays(project: Path) -> None:
    made = project / ".claude" / "skills" / "deploy"
    _stage_new(project, made / "SKILL.md")
    adopt(project, PROPOSAL)
    (made / "notes.md").write_text("mine\n")
    rollback(project, PROPOSAL)
    assert not (made / "SKILL.md").exists()
    assert (made / "notes.md").read_text() == "mine\n"


class _Killed(BaseException):
    """What a SIGKILL looks like to the code after it: nothing else runs."""


def test_undoing_a_killed_adopt_keeps_a_folder_that_was_there(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = project / ".claude" / "skills" / "deploy"
    empty = project / ".claude" / "skills" / "kept"
    empty.mkdir()
    _stage_new(project, made / "SKILL.md", empty / "SKILL.md")
    real = _live_writes.atomic_write_bytes
    written: list[Path] = []

    def write(path: Path, data: bytes, mode: int | None = None, **kw: object) -> None:
        if written:
            raise _Killed
        real(path, data, mode=mode)
        written.append(path)

    monkeypatch.setattr(_live_writes, "atomic_write_bytes", write)
    with pytest.raises(_Killed):
        adopt(project, PROPOSAL)
    monkeypatch.setattr(_live_writes, "atomic_write_bytes", real)
    assert (made / "SKILL.md").exists()
    (note,) = transaction.recover(ProjectState(project))
    assert note.action == "adopt" and not note.repaired
    assert not made.exists()
    assert empty.is_dir()
    assert [p.state for p in list_proposals(project)] == ["pending"]


def test_finishing_a_killed_rollback_keeps_a_folder_that_was_there(project: Path) -> None:
    made = project / ".claude" / "skills" / "deploy"
    empty = project / ".claude" / "skills" / "kept"
    empty.mkdir()
    _stage_new(project, made / "SKILL.md", empty / "SKILL.md")
    adopt(project, PROPOSAL)
    state = ProjectState(project)
    append_line(  # a rollback killed right after its journal record
        state.journal_path, {"action": "rollback", "phase": "begin", "proposal": PROPOSAL}
    )
    (note,) = transaction.recover(state)
    assert note.action == "rollback" and not note.repaired
    assert not made.exists()
    assert empty.is_dir() and not (empty / "SKILL.md").exists()
    assert [p.state for p in list_proposals(project)] == ["rolled back"]
