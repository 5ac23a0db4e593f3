"""Where each harness keeps its user-level files, and where our plugin folders are shipped.

Homes honour the harnesses' own overrides (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
``COPILOT_HOME``) and otherwise sit under the user's home; nothing is hard-coded to ``~/.claude``.
The plugin folders (``plugins/`` in a checkout) travel in the wheel as ``skillopt_sleep/_plugins``
(a symlink to ``../plugins`` in the source tree, a real folder once built), so an installed
package needs no clone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

Harness = Literal["claude-code", "codex", "copilot"]
HARNESSES: tuple[Harness, ...] = ("claude-code", "codex", "copilot")


@dataclass(frozen=True)
class Homes:
    home: Path
    claude: Path
    codex: Path
    copilot: Path

    @property
    def agents_skills(self) -> Path:
        """User skills for current Codex (and Copilot): ``~/.agents/skills``."""
        return self.home / ".agents" / "skills"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, home: Path | None = None) -> Homes:
        env = os.environ if environ is None else environ
        base = home or Path.home()

        def pick(name: str, default: Path) -> Path:
            value = env.get(name)
            return Path(value).expanduser() if value else default

        return cls(
            home=base,
            claude=pick("CLAUDE_CONFIG_DIR", base / ".claude"),
            codex=pick("CODEX_HOME", base / ".codex"),
            copilot=pick("COPILOT_HOME", base / ".copilot"),
        )


def plugin_dir(harness: Harness) -> Path:
    """The shipped plugin folder of ``harness`` (real path, so harness CLIs record a stable one)."""
    root = Path(str(resources.files("skillopt_sleep") / "_plugins"))
    if not root.is_dir():  # a checkout whose git turned the symlink into a text file (Windows)
        root = Path(__file__).resolve().parents[2] / "plugins"
    return (root / harness).resolve()


def template(harness: Harness, relative: str) -> str:
    return (plugin_dir(harness) / relative).read_text(encoding="utf-8")
