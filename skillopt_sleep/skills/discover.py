"""Find the user's skills: ``<root>/<name>/SKILL.md`` under the harness skill roots.

Project roots: ``.claude/skills``, ``.agents/skills``, ``.github/skills``; user roots:
``~/.claude/skills``, ``~/.agents/skills``, ``~/.copilot/skills``. Our own shim skill
(``skillopt-sleep``) is never a training target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_core.skill.document import split_frontmatter

PROJECT_ROOTS = (".claude/skills", ".agents/skills", ".github/skills")
USER_ROOTS = (".claude/skills", ".agents/skills", ".copilot/skills")
MEMORY_FILES = {
    "claude": "CLAUDE.md",
    "codex": "AGENTS.md",
    "copilot": ".github/copilot-instructions.md",
}
OWN_SKILLS = frozenset({"skillopt-sleep"})
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


@dataclass(frozen=True)
class SkillFile:
    path: Path
    name: str
    description: str
    scope: Literal["project", "user"]


def frontmatter_fields(text: str) -> dict[str, str]:
    """Top-level ``key: value`` pairs of a YAML frontmatter (quoted, folded ``>``/``|`` values)."""
    block = split_frontmatter(text)[0]
    fields: dict[str, str] = {}
    key = ""
    for line in block.splitlines()[1:-1]:
        match = _KEY.match(line)
        if match and not line.startswith((" ", "\t")):
            key, value = match.group(1), match.group(2).strip()
            fields[key] = "" if value in (">", "|", ">-", "|-") else value.strip("'\"")
        elif key and line.strip():
            fields[key] = f"{fields[key]} {line.strip()}".strip()
    return fields


def read_skill(path: Path, scope: Literal["project", "user"]) -> SkillFile | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    meta = frontmatter_fields(text)
    name = meta.get("name") or path.parent.name
    return SkillFile(path, name, meta.get("description", ""), scope)


def find_skills(project: Path, home: Path) -> list[SkillFile]:
    """Every readable SKILL.md under the project and user roots, project first, sorted by path."""
    found: list[SkillFile] = []
    seen: set[Path] = set()
    for base, roots, scope in ((project, PROJECT_ROOTS, "project"), (home, USER_ROOTS, "user")):
        for root in roots:
            directory = base / root
            if not directory.is_dir():
                continue
            for path in sorted(directory.glob("*/SKILL.md")):
                real = path.resolve()
                if real in seen or path.parent.name in OWN_SKILLS:
                    continue
                seen.add(real)
                skill = read_skill(path, scope)  # type: ignore[arg-type]
                if skill is not None:
                    found.append(skill)
    return found


def memory_file(project: Path, sources: list[str]) -> Path:
    """The harness memory file to improve: the first that exists, else the first source's."""
    candidates = [project / MEMORY_FILES[s] for s in sources if s in MEMORY_FILES]
    for path in candidates:
        if path.is_file():
            return path
    return candidates[0] if candidates else project / "AGENTS.md"
