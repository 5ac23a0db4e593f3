"""The files a night improves: the user's skills, a managed learned skill, the memory file."""

from __future__ import annotations

from skillopt_sleep.skills.discover import (
    SkillFile,
    discover_skills,
    find_skills,
    link_problem,
    memory_file,
)
from skillopt_sleep.skills.learned import body_from_view, learned_body, training_view, with_learned
from skillopt_sleep.skills.route import (
    MANAGED_NAME,
    Target,
    managed_skill_text,
    managed_target,
    route_families,
)

__all__ = [
    "MANAGED_NAME",
    "SkillFile",
    "Target",
    "body_from_view",
    "discover_skills",
    "find_skills",
    "learned_body",
    "link_problem",
    "managed_skill_text",
    "managed_target",
    "memory_file",
    "route_families",
    "training_view",
    "with_learned",
]
