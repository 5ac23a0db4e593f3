"""Two skill files and one proposal staged for both, for the tests of a damaged proposal."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.stage.proposal import FileChange, stage

NIGHT = "20260101-010000"


def stage_two(tmp_path: Path, old: bytes) -> list[Path]:
    """Skills ``a`` and ``b`` of ``<tmp>/proj`` holding ``old``, and proposal ``NIGHT`` adding
    a line to each."""
    paths = [tmp_path / "proj" / ".claude" / "skills" / n / "SKILL.md" for n in ("a", "b")]
    for path in paths:
        path.parent.mkdir(parents=True)
        path.write_bytes(old)
    changes = [FileChange(p, "skill", old, f"{old.decode()}advice\n", 1) for p in paths]
    stage(ProjectState(paths[0].parents[3]), NIGHT, changes, {})
    return paths


def staged_file(skills: list[Path], index: int) -> Path:
    """The staged copy of skill ``index`` in proposal ``NIGHT``."""
    directory = ProjectState(skills[0].parents[3]).proposal_dir(NIGHT)
    return next((directory / "files").glob(f"{index:02d}-*SKILL.md"))
