"""Which adopts came "after" one being rolled back is decided by when they were adopted, not by
their ids. A proposal staged first can be adopted last: one left pending because marking it
superseded failed (a full disk after the adopt's commit fails no command) and adopted with
``--force`` over the newer one. Before, ``rollback`` of the newer one did not see the older one
on top of it: its refusal did not name it, and ``--force`` restored the newer one's backups under
it, leaving the older one "adopted" with its text gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import DriftError, StorageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.stage import retention
from skillopt_sleep.stage.proposal import FileChange, stage


def _stage(files: list[Path], night_id: str) -> str:
    changes = [
        FileChange(f, "skill", f.read_bytes(), f"{f.read_text()}advice {night_id}\n", 1)
        for f in files
    ]
    stage(ProjectState(files[0].parents[3]), night_id, changes, {})
    return night_id


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


@pytest.fixture
def older_over_newer(skill: Path, old: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """``older`` (two files) adopted with --force over ``newer`` (one of them)."""
    other = skill.parents[1] / "t" / "SKILL.md"
    other.parent.mkdir()
    other.write_bytes(old)
    older = _stage([skill, other], "20260101-030000")
    newer = _stage([skill], "20260102-030000")

    def full_disk(state: ProjectState, adopted: Path) -> list[str]:
        raise StorageError("No space left on device")

    monkeypatch.setattr(retention, "after_adopt", full_disk)
    project = skill.parents[3]
    adopt(project, newer)
    assert _states(project)[older] == "pending"  # its mark as superseded was not written
    adopt(project, older, force=True)
    return older, newer


def test_the_refusal_names_the_older_proposal_adopted_over_it(
    skill: Path, older_over_newer: tuple[str, str]
) -> None:
    older, newer = older_over_newer
    with pytest.raises(DriftError) as refused:
        rollback(skill.parents[3], newer)
    assert f"proposal {older} was adopted over {newer} since" in refused.value.message
    assert f"rollback {older}" in refused.value.hint


def test_forcing_it_rolls_back_the_older_one_first(
    skill: Path, old: bytes, older_over_newer: tuple[str, str]
) -> None:
    older, newer = older_over_newer
    project = skill.parents[3]
    result = rollback(project, newer, force=True)
    assert f"also rolled back {older}, adopted over it since" in result.message
    assert skill.read_bytes() == old
    assert (skill.parents[1] / "t" / "SKILL.md").read_bytes() == old
    assert _states(project) == {older: "rolled back", newer: "rolled back"}
