"""``rollback A --force`` over a proposal B adopted on top of A "drops both", as its refusal
says. Before, only A's backups were restored: B still read "adopted" with its text gone, and the
next ``rollback`` (of B) was refused as "changed since adopted" and, forced, put A's edits back
while both proposals read "rolled back"."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import DriftError, UsageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.stage.proposal import FileChange, stage


def _stage(files: list[Path], night: int) -> str:
    night_id = f"20260101-{night:02d}0000"
    changes = [
        FileChange(f, "skill", f.read_bytes(), f"{f.read_text()}advice {night}\n", 1) for f in files
    ]
    stage(ProjectState(files[0].parents[3]), night_id, changes, {})
    return night_id


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_forcing_the_rollback_of_an_adopt_under_a_later_one_rolls_both_back(
    skill: Path, old: bytes
) -> None:
    project = skill.parents[3]
    other = skill.parents[1] / "t" / "SKILL.md"
    other.parent.mkdir()
    other.write_bytes(old)
    first = _stage([skill], 1)
    adopt(project, first)
    second = _stage([skill, other], 2)  # over the first's file, and one of its own
    adopt(project, second)

    with pytest.raises(DriftError, match="--force` to drop both"):
        rollback(project, first)
    result = rollback(project, first, force=True)
    assert f"also rolled back {second}, adopted over it since" in result.message  # not silently

    assert skill.read_bytes() == old and other.read_bytes() == old
    assert _states(project) == {first: "rolled back", second: "rolled back"}
    with pytest.raises(UsageError, match="no adopted proposal"):
        rollback(project)
    assert skill.read_bytes() == old


def test_a_hand_edit_over_the_later_adopt_is_kept_beside_its_backups(
    skill: Path, old: bytes
) -> None:
    project = skill.parents[3]
    first = _stage([skill], 1)
    adopt(project, first)
    second = _stage([skill], 2)
    adopt(project, second)
    edited = skill.read_bytes() + b"my own note\n"
    skill.write_bytes(edited)

    result = rollback(project, first, force=True)

    assert skill.read_bytes() == old
    assert _states(project) == {first: "rolled back", second: "rolled back"}
    kept = ProjectState(project).backup_dir(first) / "00.at-rollback"
    assert kept.read_bytes() == edited and "00.at-rollback" in result.message
