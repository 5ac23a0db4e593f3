"""An interrupted adopt whose proposal was then deleted or damaged stops no command.

Before, every adopt, rollback and night (each recovers first) and ``status`` failed on it with
"... holds no valid proposal manifest" and no way out, for good."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillopt_sleep.engine import ProjectState, adopt, list_proposals, rollback
from skillopt_sleep.engine.api import interrupted
from skillopt_sleep.engine.state import append_line
from skillopt_sleep.stage.proposal import FileChange, stage

GONE, OTHER = "20260101-030000", "20260102-030000"


def test_an_unfinishable_adopt_is_reported_until_the_user_closes_it(skill: Path) -> None:
    project, state = skill.parents[3], ProjectState(skill.parents[3])
    change = FileChange(skill, "skill", skill.read_bytes(), f"{skill.read_text()}tip\n", 1)
    stage(state, GONE, [change], {})
    append_line(state.journal_path, {"action": "adopt", "phase": "begin", "proposal": GONE})
    shutil.rmtree(state.proposal_dir(GONE))  # the user cleaned up the staging folder
    stage(state, OTHER, [change], {})

    (note,) = interrupted(project)
    assert f"an interrupted adopt of {GONE} cannot be finished" in note
    assert f"backups/{GONE}" in note and f"`skillopt-sleep rollback {GONE}`" in note
    adopted = adopt(project, OTHER)  # was: StorageError, for every command
    assert f"an interrupted adopt of {GONE} cannot be finished" in adopted.message
    assert [p.state for p in list_proposals(project)] == ["adopted"]
    assert len(interrupted(project)) == 1  # said again until the user closes it

    closed = rollback(project, GONE)
    assert closed.message.startswith(f"closed the interrupted adopt of {GONE}")
    assert "as its proposal is damaged" in closed.message
    assert interrupted(project) == []
    assert [p.state for p in list_proposals(project)] == ["adopted"]  # OTHER untouched
    assert rollback(project).proposal == OTHER
