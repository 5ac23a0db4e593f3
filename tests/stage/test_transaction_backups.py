"""The backups adopt keeps: one stored copy per distinct content however many proposals are
adopted over the same live file, and rollback still byte for byte.

The same proposal cannot be adopted twice (once rolled back it is no longer pending), so the
duplicates came from successive proposals staged from the same live bytes: a rollback, or the
file put back by hand, between their adopts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine import ProjectState, adopt, rollback
from skillopt_sleep.stage.proposal import FileChange, stage

OLD = b"---\nname: s\ndescription: a skill\n---\nold\n"
pytestmark = pytest.mark.parametrize("old", [OLD])  # the conftest's skill starts from it


def _project(skill: Path) -> Path:
    return skill.parents[3]


def _stage(skill: Path, night: int) -> str:
    """A pending proposal, staged from the live file as it is now."""
    night_id = f"2026010{night}-000000"
    live = skill.read_bytes()
    change = FileChange(skill, "skill", live, f"{live.decode()}advice {night}\n", 1)
    stage(ProjectState(_project(skill)), night_id, [change], {})
    return night_id


def _stored(skill: Path, data: bytes) -> set[tuple[int, int]]:
    """The distinct files (inodes) under the backups folder that hold ``data``."""
    backups = ProjectState(_project(skill)).root / "backups"
    return {
        (os.stat(p).st_dev, os.stat(p).st_ino)
        for p in backups.rglob("*")
        if p.is_file() and p.read_bytes() == data
    }


def test_the_same_live_content_is_stored_once_across_adopts(skill: Path) -> None:
    project = _project(skill)
    first = _stage(skill, 1)
    adopt(project, first)
    rollback(project, first)
    assert skill.read_bytes() == OLD
    second = _stage(skill, 2)
    adopt(project, second)
    skill.write_bytes(OLD)  # the same file put back by hand ("reinstalled")
    third = _stage(skill, 3)
    adopt(project, third, force=True)

    backups = [ProjectState(project).backup_dir(n) / "00.orig" for n in (first, second, third)]
    assert all(b.read_bytes() == OLD for b in backups)
    assert len(_stored(skill, OLD)) == 1  # was one file per adopt: three copies of OLD

    rollback(project, third)
    assert skill.read_bytes() == OLD
    rollback(project, second)
    assert skill.read_bytes() == OLD


def test_a_rolled_back_proposal_is_not_adopted_again(skill: Path) -> None:
    """The same proposal twice (the scenario as first reported) cannot happen on main either."""
    project = _project(skill)
    first = _stage(skill, 1)
    adopt(project, first)
    rollback(project, first)
    with pytest.raises(UsageError, match="rolled back, not pending"):
        adopt(project, first, force=True)
    assert len(_stored(skill, OLD)) == 1


def test_without_hard_links_each_backup_is_a_copy_and_rollback_stays_exact(
    skill: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: object, dst: object) -> None:
        raise OSError(1, "hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    project = _project(skill)
    first = _stage(skill, 1)
    adopt(project, first)
    assert (ProjectState(project).backup_dir(first) / "00.orig").read_bytes() == OLD
    rollback(project, first)
    assert skill.read_bytes() == OLD
