"""Find the user's skills: ``<root>/<name>/SKILL.md`` under the harness skill roots.

Project roots: ``.claude/skills``, ``.agents/skills``, ``.github/skills``; user roots:
``~/.claude/skills``, ``~/.agents/skills``, ``~/.copilot/skills``. Our own shim skill
(``skillopt-sleep``) is never a training target.

A skill file may be a symbolic link (skills kept in a dotfiles repo): a night reads it and
``adopt`` writes through it, so where it leads decides whether it is a skill (:func:`link_problem`):

- a project skill must lead to a file inside the project, or to one of the user's own skills.
  A cloned repository's ``SKILL.md`` could link to ``~/.bashrc``: its text would be sent to a
  model and ``adopt`` would edit it. A file of yours kept elsewhere: link it from a user root.
- a user skill (a link in the user's own skill folder, which only they set up) must lead to a
  Markdown file inside their home folder: not to a shell profile, not out of the home folder.

:func:`discover_skills` skips a file that fails and says why.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_core.skill.document import split_frontmatter
from skillopt_sleep._display import displayable

PROJECT_ROOTS = (".claude/skills", ".agents/skills", ".github/skills")
USER_ROOTS = (".claude/skills", ".agents/skills", ".copilot/skills")
MEMORY_FILES = {
    "claude": "CLAUDE.md",
    "codex": "AGENTS.md",
    "copilot": ".github/copilot-instructions.md",
}
OWN_SKILLS = frozenset({"skillopt-sleep"})
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"\\": "\\", '"': '"', "/": "/", " ": " ", "t": "\t", "n": "\n"}


@dataclass(frozen=True)
class SkillFile:
    path: Path
    name: str
    description: str
    scope: Literal["project", "user"]


def _unquoted(value: str) -> str:
    """A one-line YAML scalar's text: single-quoted ('' is one '), double-quoted (the common
    backslash escapes), or plain."""
    if len(value) > 1 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) > 1 and value[0] == value[-1] == '"':
        return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group()), value[1:-1])
    return value.strip("'\"")


def frontmatter_fields(text: str) -> dict[str, str]:
    """Top-level ``key: value`` pairs of a YAML frontmatter (quoted, folded ``>``/``|`` values)."""
    block = split_frontmatter(text)[0]
    fields: dict[str, str] = {}
    key = ""
    for line in block.splitlines()[1:-1]:
        match = _KEY.match(line)
        if match and not line.startswith((" ", "\t")):
            key, value = match.group(1), match.group(2).strip()
            fields[key] = "" if value in (">", "|", ">-", "|-") else _unquoted(value)
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


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def in_user_root(path: Path, home: Path) -> bool:
    """``path`` lies in one of the user's skill roots, by its own name (not where it leads)."""
    where = os.path.abspath(path)
    return any(_inside(where, os.path.abspath(home / root)) for root in USER_ROOTS)


def _user_problem(real: str, home: Path) -> str:
    if not _inside(real, os.path.realpath(home)):
        return "outside your home folder"
    return "" if real.lower().endswith(".md") else "not a Markdown file"


def _user_skill_files(home: Path) -> set[str]:
    """Where the user's own skills lead (each one that passes the user rule)."""
    found = set()
    for root in USER_ROOTS:
        for path in (home / root).glob("*/SKILL.md"):
            real = os.path.realpath(path)
            if not _user_problem(real, home):
                found.add(real)
    return found


def link_problem(path: Path, project: Path, home: Path, real: str = "") -> str:
    """Why ``path`` must not be read or written as a skill or memory file, or "" when it may
    (the rule of the module docstring). ``real`` is where it leads (default: where it does now)."""
    real = real or os.path.realpath(path)
    if in_user_root(path, home):
        why = _user_problem(real, home)
    elif _inside(real, os.path.realpath(project)) or real in _user_skill_files(home):
        why = ""
    else:
        why = "outside the project and not one of your own skills"
    return displayable(f"{path} is a link to {real}, {why}") if why else ""


def discover_skills(project: Path, home: Path) -> tuple[list[SkillFile], list[str]]:
    """Every readable SKILL.md under the project and user roots, project first, sorted by path;
    and, for each skill file left out because of where it links to, why."""
    found: list[SkillFile] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for base, roots, scope in ((project, PROJECT_ROOTS, "project"), (home, USER_ROOTS, "user")):
        for root in roots:
            directory = base / root
            if not directory.is_dir():
                continue
            for path in sorted(directory.glob("*/SKILL.md")):
                real = os.path.realpath(path)
                if real in seen or path.parent.name in OWN_SKILLS:
                    continue
                problem = link_problem(path, project, home, real)
                if problem:
                    skipped.append(f"skipped a skill: {problem}")
                    continue
                seen.add(real)
                skill = read_skill(path, scope)  # type: ignore[arg-type]
                if skill is not None:
                    found.append(skill)
    return found, skipped


def find_skills(project: Path, home: Path) -> list[SkillFile]:
    """The skills of :func:`discover_skills` (without why some were skipped)."""
    return discover_skills(project, home)[0]


def memory_file(project: Path, sources: list[str]) -> Path:
    """The harness memory file to improve: the first that exists, else the first source's."""
    candidates = [project / MEMORY_FILES[s] for s in sources if s in MEMORY_FILES]
    for path in candidates:
        if path.is_file():
            return path
    return candidates[0] if candidates else project / "AGENTS.md"
