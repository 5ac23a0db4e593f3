"""A proposal whose staged file is gone is refused before anything is written.

Before, ``adopt`` backed up, journaled "begin", replaced the first files and then died on the
missing one with a traceback, and ``status`` then said an adopt was interrupted; ``rollback``
of an adopt whose staged file went missing died the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_ERROR
from skillopt_sleep.cli import app
from skillopt_sleep.engine import adopt, list_proposals, rollback
from skillopt_sleep.engine.api import interrupted
from tests.stage._two_skills import NIGHT, stage_two
from tests.stage._two_skills import staged_file as _staged


@pytest.fixture
def skills(tmp_path: Path, old: bytes) -> list[Path]:
    return stage_two(tmp_path, old)


def test_a_missing_staged_file_is_refused_before_any_write(skills: list[Path], old: bytes) -> None:
    project = skills[0].parents[3]
    _staged(skills, 1).unlink()
    result = CliRunner().invoke(app, ["adopt", "-p", str(project)])
    assert result.exit_code == EXIT_ERROR, result.output
    assert isinstance(result.exception, SystemExit)  # a message, not a traceback
    assert f"proposal {NIGHT} is damaged" in result.stderr and f"reject {NIGHT}" in result.stderr
    assert [s.read_bytes() for s in skills] == [old, old]
    assert interrupted(project) == [] and [p.state for p in list_proposals(project)] == ["pending"]


def test_an_adopt_whose_staged_file_went_missing_still_rolls_back(
    skills: list[Path], old: bytes
) -> None:
    project = skills[0].parents[3]
    adopt(project, NIGHT)
    _staged(skills, 0).unlink()
    rollback(project, force=True)
    assert [s.read_bytes() for s in skills] == [old, old]
