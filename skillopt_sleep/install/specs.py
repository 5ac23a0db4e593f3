"""What the installer can be asked to write: four kinds of change, and what it reports back.

- :class:`FileSpec`: a whole file we own (a skill, a command, the engine pointer).
- :class:`JsonKeySpec`: one key inside a JSON config the user owns (``mcpServers.skillopt_sleep``).
- :class:`BlockSpec`: a marked block appended to a text config the user owns (Codex's TOML), so
  the rest of the file, comments included, is never rewritten.
- :class:`CommandSpec`: a harness command (``claude plugin install``) with the command undoing it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from skillopt_core.errors import SkillOptError

Verb = Literal[
    "create", "update", "unchanged", "replace", "skip", "remove", "keep", "restore", "run"
]


@dataclass(frozen=True)
class Action:
    """One line of what install / uninstall did (or, with --dry-run, would do). ``fix`` is set
    only on a failure: what the user must do before installing that harness again. ``preview``
    is the text a dry run would put in a config the user owns (the TOML block, the JSON key), or
    the entry to add by hand where the installer refuses to."""

    verb: Verb
    path: str
    detail: str = ""
    fix: str = ""
    preview: str = ""


class InstallError(SkillOptError):
    """A user's config (or our manifest) we must not touch as it is: it does not parse, has an
    unexpected shape, or cannot be read or written. ``path`` names the file; ``preview`` the
    entry the user can add by hand instead, when there is one."""

    def __init__(
        self, path: Path | str, message: str, *, hint: str = "", preview: str = ""
    ) -> None:
        super().__init__(message, hint=hint)
        self.path = str(path)
        self.preview = preview


@dataclass(frozen=True)
class FileSpec:
    harness: str
    path: Path
    content: str
    executable: bool = False
    engine: str = ""  # the executable the file runs (``doctor`` checks it is still there)


@dataclass(frozen=True)
class JsonKeySpec:
    harness: str
    path: Path
    keys: tuple[str, ...]  # e.g. ("mcpServers", "skillopt_sleep")
    value: Any
    engine: str = ""
    jsonc: bool = False  # the harness reads the file as JSONC (VS Code): comments, trailing commas


@dataclass(frozen=True)
class BlockSpec:
    harness: str
    path: Path
    body: str  # the block between the markers
    table: tuple[str, ...] = ()  # a TOML table the block defines; refuse if defined elsewhere
    engine: str = ""


@dataclass(frozen=True)
class CommandSpec:
    harness: str
    label: str
    argv: tuple[str, ...]
    undo: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


Spec = FileSpec | JsonKeySpec | BlockSpec | CommandSpec
