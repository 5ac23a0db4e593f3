"""A temporary world for engine tests: the genuine transcripts relocated under a temp dir.

The fixtures were written for projects under ``/home/dev``; tests must not write there, so every
path in the copies is rewritten to ``<tmp>/dev`` (Claude's project folder names included).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "transcripts"


def _claude_folder(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


@dataclass(frozen=True)
class World:
    root: Path
    home: Path
    webapp: Path
    reading: Path

    def overrides(self, **extra: object) -> dict[str, object]:
        return {
            "homes.claude": str(self.home / ".claude"),
            "homes.codex": str(self.home / ".codex"),
            "homes.copilot": str(self.home / ".copilot"),
            "mine.embedder": "tfidf",
            "night.since": "3650d",
            **extra,
        }


def make_world(tmp: Path) -> World:
    home = tmp / "home"
    shutil.copytree(FIXTURES, home)
    dev = tmp / "dev"
    for path in sorted(home.rglob("*"), key=lambda p: -len(p.parts)):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if "/home/dev" in text:
                path.write_text(text.replace("/home/dev", str(dev)), encoding="utf-8")
        if path.is_dir() and path.name.startswith("-home-dev-"):
            project = path.name[len("-home-dev-") :]
            path.rename(path.with_name(_claude_folder(str(dev / project))))
    for project in ("webapp", "reading"):
        (dev / project).mkdir(parents=True, exist_ok=True)
    return World(tmp, home, dev / "webapp", dev / "reading")
