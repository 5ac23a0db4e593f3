"""adopt and reject of a proposal that is no longer pending say what to do instead.

They said only "proposal X is adopted, not pending", with no fix line (a CLI probe)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine import ProjectState, adopt, reject
from skillopt_sleep.stage.proposal import FileChange, stage


def test_adopting_or_rejecting_a_settled_proposal_names_the_way_forward(tmp_path: Path) -> None:
    skill = tmp_path / "proj" / ".claude" / "skills" / "a" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: a\ndescription: a things\n---\nold\n")
    project = skill.parents[3]
    change = FileChange(skill, "skill", skill.read_bytes(), skill.read_text() + "tip\n", 1)
    night = "20260101-030000"
    stage(ProjectState(project), night, [change], {})
    adopt(project, night)
    for act in (adopt, reject):
        with pytest.raises(UsageError, match="is adopted, not pending") as refused:
            act(project, night)
        assert refused.value.hint == (
            f"it is live: `skillopt-sleep rollback {night}` puts the files back as they were"
        )
