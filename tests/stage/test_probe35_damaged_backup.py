"""A rollback, or the recovery of a cut-short adopt or rollback, restores only backups that are
the bytes the adopt saved; a damaged one is refused and no live file is written.

Found by a probe: after ``adopt``, ``truncate -s 30 backups/by-sha256/*`` then ``skillopt-sleep
rollback`` exited 0 ("restored byte for byte") and the live skill was 30 bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_ERROR, DriftError, StorageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.engine.api import interrupted
from skillopt_sleep.engine.state import append_line
from skillopt_sleep.stage.proposal import FileChange, set_state, stage

NIGHT = "20260101-010000"
ADVICE = b"advice\n"


@pytest.fixture
def skills(tmp_path: Path, old: bytes) -> list[Path]:
    """Two skills, NIGHT's proposal for both adopted."""
    paths = [tmp_path / "proj" / ".claude" / "skills" / n / "SKILL.md" for n in ("a", "b")]
    for name, path in zip("ab", paths, strict=True):
        path.parent.mkdir(parents=True)
        path.write_bytes(old + name.encode())
    changes = [
        FileChange(p, "skill", p.read_bytes(), f"{p.read_text()}\n{ADVICE.decode()}", 1)
        for p in paths
    ]
    project = paths[0].parents[3]
    stage(ProjectState(project), NIGHT, changes, {})
    adopt(project, NIGHT)
    return paths


def _project(skills: list[Path]) -> Path:
    return skills[0].parents[3]


def _adopted(skills: list[Path]) -> list[bytes]:
    return [s.read_bytes() for s in skills]


def _backup(skills: list[Path], index: int) -> Path:
    return ProjectState(_project(skills)).backup_dir(NIGHT) / f"{index:02d}.orig"


def test_a_cut_short_stored_backup_is_refused_and_nothing_is_rolled_back(
    skills: list[Path],
) -> None:
    project, adopted = _project(skills), _adopted(skills)
    store = ProjectState(project).backup_dir(NIGHT).parent / "by-sha256"
    damaged = sorted(store.iterdir())[0]
    os.truncate(damaged, 30)  # the probe's command: both NN.orig are links to the store
    result = CliRunner().invoke(app, ["rollback", "-p", str(project)])
    assert result.exit_code == EXIT_ERROR, result.output
    assert isinstance(result.exception, SystemExit)
    assert "is damaged" in result.stderr and "nothing was rolled back" in result.stderr
    assert "restored byte for byte" not in result.output
    assert _adopted(skills) == adopted  # no partial rollback: the intact one stays too
    assert [p.state for p in list_proposals(project)] == ["adopted"]
    with pytest.raises(StorageError, match="is damaged"):
        rollback(project, force=True)  # forced too: a damaged backup is no way back
    assert _adopted(skills) == adopted


def test_a_backup_copy_replaced_by_hand_is_refused(skills: list[Path]) -> None:
    """Not a link to the store any more: checked against the sha256 the adopt recorded."""
    project, adopted = _project(skills), _adopted(skills)
    backup = _backup(skills, 1)
    data = backup.read_bytes()
    backup.unlink()
    backup.write_bytes(data[:-1])
    with pytest.raises(StorageError, match=f"{backup.name} of {skills[1]} is damaged"):
        rollback(project)
    assert _adopted(skills) == adopted


def test_a_backup_deleted_by_hand_does_not_delete_the_live_file(skills: list[Path]) -> None:
    """A missing ``NN.orig`` read as "no file before the adopt": rollback removed the skill."""
    project, adopted = _project(skills), _adopted(skills)
    _backup(skills, 0).unlink()
    with pytest.raises(StorageError, match="is missing"):
        rollback(project)
    assert _adopted(skills) == adopted


def test_an_adopt_recorded_before_the_check_is_checked_by_its_store_name(
    skills: list[Path],
) -> None:
    """Its journal "begin" has no sha256s: the name of the stored content tells them."""
    project, adopted = _project(skills), _adopted(skills)
    journal = ProjectState(project).journal_path
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    for record in records:
        record.pop("backups", None)
    journal.write_text("".join(f"{json.dumps(r)}\n" for r in records))
    os.truncate(_backup(skills, 0), 5)
    with pytest.raises(StorageError, match="is damaged"):
        rollback(project)
    assert _adopted(skills) == adopted


def _cut_short(project: Path, action: str) -> None:
    """Leave NIGHT's ``action`` as a killed one leaves it: a "begin" without "done"."""
    state = ProjectState(project)
    if action == "adopt":
        set_state(state.proposal_dir(NIGHT), "pending")
        lines = state.journal_path.read_text().splitlines(keepends=True)
        state.journal_path.write_text("".join(x for x in lines if '"done"' not in x))
    else:
        append_line(state.journal_path, {"action": "rollback", "phase": "begin", "proposal": NIGHT})


@pytest.mark.parametrize("action", ["adopt", "rollback"])
def test_a_recovery_does_not_restore_a_damaged_backup(skills: list[Path], action: str) -> None:
    project, adopted = _project(skills), _adopted(skills)
    _cut_short(project, action)
    os.truncate(_backup(skills, 0), 30)
    (note,) = interrupted(project)
    assert f"interrupted {action} of {NIGHT} cannot be finished" in note
    assert "is damaged" in note and f"rollback {NIGHT}" in note

    with pytest.raises((StorageError, DriftError)) as failed:  # it goes on, and says so
        adopt(project, NIGHT) if action == "adopt" else rollback(project)
    assert f"interrupted {action} of {NIGHT} cannot be finished" in failed.value.message
    assert _adopted(skills) == adopted
    assert len(interrupted(project)) == 1  # said until the user closes it
    closed = rollback(project, NIGHT)
    assert closed.message.startswith(f"closed the interrupted {action} of {NIGHT}")
    assert "as a backup of it is damaged" in closed.message  # not "whose proposal is damaged"
    assert interrupted(project) == [] and _adopted(skills) == adopted


def test_a_recovery_with_intact_backups_still_restores_them(skills: list[Path], old: bytes) -> None:
    project = _project(skills)
    _cut_short(project, "adopt")
    result = rollback(project)
    assert "was undone" in result.message
    assert _adopted(skills) == [old + b"a", old + b"b"]
