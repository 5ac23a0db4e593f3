"""Tonight's target files: which file each family's lesson goes to, and what training one gave.

Families are routed to the skill they belong to, else to the fallback (the harness memory file
with ``night.memory``, otherwise the managed learned skill); the selection is then split by file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from skillopt_sleep.engine.config_schema import NightSection
from skillopt_sleep.engine.consolidate import Consolidation
from skillopt_sleep.engine.select import Selection, only_families


@dataclass(frozen=True)
class TargetRun:
    """One file trained tonight and what came of it."""

    path: Path
    kind: str
    live: bytes | None
    result: Consolidation


def route(
    project: Path, home: Path, night: NightSection, mined: Any
) -> tuple[dict[str, Any], list[str]]:
    """Each mined family's target, and the skill files left out for where they link to."""
    from skillopt_sleep.skills import (
        discover_skills,
        managed_target,
        memory_file,
        route_families,
    )
    from skillopt_sleep.skills.route import Target

    fallback = (
        Target(memory_file(project, night.sources), "memory", "memory")
        if night.memory
        else managed_target(project, night.sources, night.learned_skill_dir)
    )
    requests = {f.id: list(f.requests) for f in mined.families}
    skills, skipped = discover_skills(project, home)
    return route_families(requests, skills, fallback), skipped


def group_by_target(
    selection: Selection, routes: Mapping[str, Any]
) -> dict[Path, tuple[Any, Selection]]:
    """Tonight's selection split by the file each family is routed to. A file whose families
    kept no training task (the budget trimmed them) is left for another night."""
    targets = {routes[f].path: routes[f] for f in selection.families}
    out: dict[Path, tuple[Any, Selection]] = {}
    for path, target in targets.items():
        families = {f for f in selection.families if routes[f].path == path}
        part = only_families(selection, families)
        if part.train:
            out[path] = (target, replace(part, families=tuple(sorted(families))))
    return out
