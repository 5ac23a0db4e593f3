"""A skill file and proposals staged over it by hand, for tests of what a user does with them
(adopt, reject, rollback, refused)."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.stage.proposal import FileChange, stage


def new_skill(tmp_path: Path) -> Path:
    """``<tmp>/proj/.claude/skills/s/SKILL.md``, with frontmatter and one line."""
    path = tmp_path / "proj" / ".claude" / "skills" / "s" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\nname: s\ndescription: s things\n---\nold\n")
    return path


def stage_adding(skill: Path, night: int, *lines: str, rationale: str | None = None) -> str:
    """A proposal staged from the live file as it is now, adding ``lines`` (its edits, with
    ``rationale`` when given); its id."""
    night_id = f"202601{night:02d}-031700"
    text = skill.read_text() + "".join(f"{line}\n" for line in lines)
    edits = [
        {"skill": str(skill), "op": "add", "anchor": "", "content": line, "accepted": True}
        for line in lines
    ]
    if rationale is not None:
        edits = [{**edit, "rationale": rationale} for edit in edits]
    report = {"report.json": json.dumps({"edits": edits})}
    change = FileChange(skill, "skill", skill.read_bytes(), text, len(lines))
    stage(ProjectState(skill.parents[3]), night_id, [change], report)
    return night_id
