"""Rollback never drops text nobody reviewed: a live file changed since the adopt is refused.

Before, ``rollback`` restored its backups over whatever the live files held: a user's own edits
made since the adopt, or a later adopt over the same file (which still read "adopted"), were
gone without a word.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_DRIFT, DriftError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.stage.proposal import FileChange, stage


def _stage(skill: Path, night: int) -> str:
    night_id = f"20260101-{night:02d}0000"
    change = FileChange(
        skill, "skill", skill.read_bytes(), f"{skill.read_text()}advice {night}\n", 1
    )
    stage(ProjectState(skill.parents[3]), night_id, [change], {})
    return night_id


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_own_edits_since_the_adopt_are_not_rolled_over(skill: Path, old: bytes) -> None:
    project = skill.parents[3]
    first = _stage(skill, 1)
    adopt(project, first)
    edited = skill.read_bytes() + b"my own note\n"
    skill.write_bytes(edited)

    with pytest.raises(DriftError, match=r"changed since proposal .* was adopted") as refused:
        rollback(project)
    assert "--force" in refused.value.hint
    assert skill.read_bytes() == edited and _states(project) == {first: "adopted"}

    result = rollback(project, force=True)
    assert skill.read_bytes() == old and _states(project) == {first: "rolled back"}
    kept = ProjectState(project).backup_dir(first) / "00.at-rollback"
    assert kept.read_bytes() == edited and "00.at-rollback" in result.message


def test_a_later_adopt_over_the_same_file_is_rolled_back_first(skill: Path, old: bytes) -> None:
    project = skill.parents[3]
    first = _stage(skill, 1)
    adopt(project, first)
    second = _stage(skill, 2)  # made from what the first adopt wrote
    adopt(project, second)

    with pytest.raises(DriftError, match=f"{second} was adopted over {first}") as refused:
        rollback(project, first)
    assert f"rollback {second}" in refused.value.hint
    assert skill.read_text().endswith("advice 2\n")

    rollback(project)  # the latest: the second
    rollback(project, first)
    assert skill.read_bytes() == old
    assert _states(project) == {first: "rolled back", second: "rolled back"}


def test_a_file_already_put_back_or_deleted_rolls_back_quietly(skill: Path, old: bytes) -> None:
    """Nothing would be lost there, so nothing is refused."""
    project = skill.parents[3]
    first = _stage(skill, 1)
    adopt(project, first)
    skill.write_bytes(old)  # put back by hand
    rollback(project, first)
    assert skill.read_bytes() == old

    second = _stage(skill, 2)
    adopt(project, second)
    skill.unlink()
    rollback(project, second)
    assert skill.read_bytes() == old


def test_the_cli_exits_6_with_the_way_out(skill: Path, old: bytes) -> None:
    project = skill.parents[3]
    first = _stage(skill, 1)
    adopt(project, first)
    skill.write_bytes(skill.read_bytes() + b"mine\n")
    refused = CliRunner().invoke(app, ["rollback", "-p", str(project)])
    assert refused.exit_code == EXIT_DRIFT
    assert "rolling back would lose those changes" in refused.stderr
    assert f"rollback {first} --force" in refused.stderr
    forced = CliRunner().invoke(app, ["rollback", "-p", str(project), "--force", "--json"])
    assert forced.exit_code == 0, forced.stderr
    assert json.loads(forced.stdout)["action"] == "rolled back" and skill.read_bytes() == old
