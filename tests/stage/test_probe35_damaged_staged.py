"""A staged file that is not the bytes its manifest pins is a damaged proposal: adopt refuses it.

Found by a probe: ``truncate -s 60 staging/<id>/files/*`` then ``skillopt-sleep adopt`` exited 0
("live files replaced") and the user's SKILL.md was 60 bytes, their text gone. Only a staged
file that was missing was refused before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_ERROR, StorageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject
from skillopt_sleep.engine.api import interrupted
from tests.stage._two_skills import NIGHT, stage_two
from tests.stage._two_skills import staged_file as _staged


@pytest.fixture
def skills(tmp_path: Path, old: bytes) -> list[Path]:
    return stage_two(tmp_path, old)


def test_a_cut_short_staged_file_is_refused_before_any_write(
    skills: list[Path], old: bytes
) -> None:
    project = skills[0].parents[3]
    staged = _staged(skills, 1)
    os.truncate(staged, 20)
    result = CliRunner().invoke(app, ["adopt", "-p", str(project)])
    assert result.exit_code == EXIT_ERROR, result.output
    assert isinstance(result.exception, SystemExit)  # a message, not a traceback
    assert f"proposal {NIGHT} is damaged" in result.stderr and str(staged) in result.stderr
    assert f"reject {NIGHT}" in result.stderr
    assert [s.read_bytes() for s in skills] == [old, old]  # the first file too
    assert interrupted(project) == [] and [p.state for p in list_proposals(project)] == ["pending"]
    assert not list(ProjectState(project).backup_dir(NIGHT).glob("*.orig"))
    assert reject(project).action == "rejected"  # the way out it names works


def test_a_staged_file_edited_to_the_same_size_is_refused_even_forced(
    skills: list[Path], old: bytes
) -> None:
    project = skills[0].parents[3]
    staged = _staged(skills, 0)
    staged.write_bytes(staged.read_bytes().replace(b"advice", b"ADVICE"))
    with pytest.raises(StorageError, match=f"proposal {NIGHT} is damaged"):
        adopt(project, force=True)
    assert [s.read_bytes() for s in skills] == [old, old]


def test_an_intact_proposal_still_adopts(skills: list[Path], old: bytes) -> None:
    adopt(skills[0].parents[3])
    assert [s.read_bytes() for s in skills] == [old + b"advice\n"] * 2
