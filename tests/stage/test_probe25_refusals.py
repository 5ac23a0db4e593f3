"""A rollback or reject whose refusal of the proposal's edits (the rejected-edit buffer, in
``optimizer.json``) cannot be written says what happened, and running it again finishes it.

Before, a rollback refused the edits after its commit: with ``optimizer.json`` unwritable it
exited 1 saying the live files were "untouched" although they were rolled back, and running it
again was refused ("is rolled back, not adopted") with the edits never refused, so the next
night proposed them again; a plain ``rollback`` run again rolled back the adopt before it. A
reject marked the proposal rejected first, then failed the same way, and ``reject`` again said
"its edits are in the rejected buffer" when they were not."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from skillopt_core import rundir
from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback
from skillopt_sleep.engine.api import interrupted
from skillopt_sleep.engine.state import read_lines
from skillopt_sleep.stage import transaction
from skillopt_sleep.stage.proposal import FileChange, stage

EDIT = {"skill": "s", "op": "add", "anchor": "", "content": "- advice", "accepted": True}


class Disk:
    """Writes of ``optimizer.json`` fail as on a full disk while ``full``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.full = False
        real = rundir._atomic_write

        def write(path: Path, data: bytes, mode: int | None) -> None:
            if self.full and path.name == "optimizer.json":
                raise OSError(errno.ENOSPC, "No space left on device")
            real(path, data, mode)

        monkeypatch.setattr(rundir, "_atomic_write", write)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    return Disk(monkeypatch)


def _stage(live: Path, night: str) -> str:
    """A proposal adding a line to ``live``, its report naming one accepted edit (and one not)."""
    change = FileChange(live, "skill", live.read_bytes(), f"{live.read_text()}- advice\n", 1)
    edit = {**EDIT, "skill": live.parent.name}
    report = json.dumps({"edits": [edit, {**edit, "content": "- no", "accepted": False}]})
    stage(ProjectState(live.parents[3]), night, [change], {"report.json": report})
    return night


def _refused(project: Path) -> dict[str, list[str]]:
    path = ProjectState(project).optimizer_path
    carry = json.loads(path.read_text()) if path.is_file() else {}
    return {k: [r["edit"]["rationale"] for r in v["rejected"]] for k, v in carry.items()}


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_a_rollback_whose_refusal_fails_says_it_rolled_back_and_a_rerun_refuses(
    skill: Path, old: bytes, disk: Disk
) -> None:
    project = skill.parents[3]
    night = _stage(skill, "20260101-030000")
    adopt(project, night)
    disk.full = True
    with pytest.raises(StorageError) as failed:
        rollback(project, night)
    error = failed.value
    assert error.message.startswith(f"rolled back {night} (its live files are restored)")
    assert "could not be added to the rejected-edit buffer yet" in error.message
    assert "untouched" not in f"{error.message} {error.hint}"
    assert f"then `skillopt-sleep rollback {night}` adds them" in error.hint
    assert skill.read_bytes() == old and _states(project) == {night: "rolled back"}
    assert any("rejected-edit buffer" in note for note in interrupted(project))

    disk.full = False
    again = rollback(project, night)
    assert again.action == "rolled back"
    assert "its edits are now in the rejected-edit buffer" in again.message
    assert _refused(project) == {"s": [f"{transaction.ROLLED_BACK}: "]}
    assert interrupted(project) == []
    assert read_lines(ProjectState(project).journal_path)[-1]["phase"] == "done"
    with pytest.raises(UsageError, match="is rolled back, not adopted"):
        rollback(project, night)
    assert _refused(project) == {"s": [f"{transaction.ROLLED_BACK}: "]}  # once


def test_a_plain_rollback_run_again_finishes_that_one_instead_of_rolling_back_the_one_before(
    skill: Path, disk: Disk
) -> None:
    project = skill.parents[3]
    other = skill.parents[1] / "t" / "SKILL.md"
    other.parent.mkdir()
    other.write_bytes(skill.read_bytes())
    first = _stage(skill, "20260101-030000")
    adopt(project, first)
    second = _stage(other, "20260102-030000")
    adopt(project, second)
    disk.full = True
    with pytest.raises(StorageError, match=f"rolled back {second}"):
        rollback(project)
    disk.full = False
    assert rollback(project).proposal == second
    assert _states(project) == {first: "adopted", second: "rolled back"}
    assert list(_refused(project)) == ["t"]


def test_a_reject_whose_refusal_fails_leaves_the_proposal_pending(skill: Path, disk: Disk) -> None:
    project = skill.parents[3]
    night = _stage(skill, "20260101-030000")
    disk.full = True
    with pytest.raises(StorageError, match="; nothing was rejected"):
        reject(project, night)
    assert _states(project) == {night: "pending"}
    disk.full = False
    assert reject(project, night).action == "rejected"
    assert _refused(project) == {"s": [f"{transaction.REJECTED}: "]}


def test_an_adopt_cut_short_does_not_say_the_live_files_are_untouched(
    skill: Path, old: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its manifest write failed and so did putting the live file back (one full disk)."""
    project = skill.parents[3]
    night = _stage(skill, "20260101-030000")
    real, writes = rundir._atomic_write, []

    def full_after_one_live_write(path: Path, data: bytes, mode: int | None) -> None:
        writes.append(path.name)
        if path.name == "manifest.json" or writes.count("SKILL.md") > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, mode)

    monkeypatch.setattr(rundir, "_atomic_write", full_after_one_live_write)
    with pytest.raises(StorageError, match="is cut short") as failed:
        adopt(project, night)
    assert skill.read_bytes() != old  # the new text is live
    assert "untouched" not in failed.value.hint
    assert "the next skillopt-sleep command undoes the cut-short adopt" in failed.value.hint


def test_a_forced_rollback_cut_short_in_its_chain_says_the_one_asked_for_is_not_done(
    skill: Path, old: bytes, disk: Disk
) -> None:
    """It said only that the later proposal it rolled back first had its edits unrefused."""
    project = skill.parents[3]
    first = _stage(skill, "20260101-030000")
    adopt(project, first)
    second = _stage(skill, "20260102-030000")  # adopted over the first's file
    adopt(project, second)
    disk.full = True
    with pytest.raises(StorageError) as failed:
        rollback(project, first, force=True)
    assert failed.value.message.startswith(f"rolled back {second}")
    assert f"; {first} is not rolled back yet" in failed.value.message
    assert f"`skillopt-sleep rollback {first} --force` again rolls it back" in failed.value.hint
    assert _states(project) == {first: "adopted", second: "rolled back"}

    disk.full = False
    rollback(project, first, force=True)
    assert skill.read_bytes() == old
    assert _states(project) == {first: "rolled back", second: "rolled back"}
    assert _refused(project) == {"s": [f"{transaction.ROLLED_BACK}: "]}  # the same edit, once
    assert interrupted(project) == []
