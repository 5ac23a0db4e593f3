"""One skill file reached by two paths is one target, so a proposal has one entry for it.

With ``.claude/skills`` a link to ``.agents/skills`` (one set of skills for Claude and Codex) and
the managed skill under ``.agents/skills``, a night routed some families to it as the skill found
under ``.claude/skills`` and the rest to it as the managed skill under ``.agents/skills``: two
proposed versions of one file, of which adopt kept the last, and rollback then refused the file
as changed since the adopt."""

from __future__ import annotations

import os
from pathlib import Path

from skillopt_sleep.engine import ProjectState, adopt, rollback
from skillopt_sleep.skills import (
    discover_skills,
    managed_skill_text,
    managed_target,
    route_families,
)
from skillopt_sleep.stage.proposal import FileChange, stage


def test_the_managed_skill_behind_a_linked_root_is_one_target(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    managed = project / ".agents" / "skills" / "skillopt-learned" / "SKILL.md"
    managed.parent.mkdir(parents=True)
    managed.write_text(managed_skill_text(["fix failing login tests session cookie"]))
    (project / ".claude").mkdir()
    os.symlink(os.path.join("..", ".agents", "skills"), project / ".claude" / "skills")
    skills, _ = discover_skills(project, tmp_path / "home")
    fallback = managed_target(project, ["codex", "claude"])
    families = {"login": ["fix failing login tests cookie"], "reading": ["weekly reading list"]}

    routes = route_families(families, skills, fallback)

    assert routes["login"].path == routes["reading"].path
    assert routes["reading"].kind == "managed"
    changes = [
        FileChange(path, "skill", managed.read_bytes(), f"{managed.read_text()}edit\n", 1)
        for path in {t.path for t in routes.values()}
    ]
    stage(ProjectState(project), "20260101-010000", changes, {})
    adopt(project, home=tmp_path / "home")
    rollback(project)
    assert managed.read_text() == managed_skill_text(["fix failing login tests session cookie"])
