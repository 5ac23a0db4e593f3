"""A temporary world for one persona run: a HOME with harness transcripts, project folders and an
isolated engine state, so an experiment never reads or writes the user's own files.

Days are written as the run reaches them (``write_days``), so each night's harvest sees only what
the persona has done so far — the incremental harvest a real user's nights go through.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.personas import Persona, SimSession, write_sessions
from skillopt_core.errors import StorageError, UsageError

_ISOLATED = ("SKILLOPT_SLEEP_HOME", "SKILLOPT_SLEEP_CONFIG")


@dataclass(frozen=True)
class PersonaWorld:
    root: Path
    persona: Persona
    sessions: tuple[SimSession, ...]

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def dev(self) -> Path:
        return self.root / "dev"

    def project(self, name: str) -> Path:
        return self.dev / name

    @property
    def projects(self) -> tuple[Path, ...]:
        return tuple(self.project(p) for p in self.persona.projects)

    def write_days(self, first: int, last: int) -> int:
        """Write the sessions of days ``first .. last-1``; returns how many were written."""
        chosen = [s for s in self.sessions if first <= s.day < last]
        write_sessions(self.home, self.dev, chosen)
        return len(chosen)

    def overrides(self) -> dict[str, Any]:
        """Engine settings every experiment night uses (ablations add their own on top)."""
        return {
            "homes.claude": str(self.home / ".claude"),
            "homes.codex": str(self.home / ".codex"),
            "homes.copilot": str(self.home / ".copilot"),
            "night.sources": "claude,codex,copilot",
            "night.since": "3650d",
            "night.max_tasks": 48,
            "mine.embedder": "tfidf",
            "train.workers": 1,
        }


def check_keep(keep: Path) -> None:
    """Refuse a ``keep`` that is not a new or empty folder: a world left there by an earlier run
    would be harvested again as this run's history (its nights would find nothing new and score
    the baseline)."""
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise UsageError(
            f"{keep} is not an empty folder, so the world cannot be kept there",
            hint="name a new or empty folder (an earlier run's world is never reused)",
        )


def _kept_root(keep: Path) -> Path:
    """``keep`` made absolute (a relative one would write transcripts whose ``cwd`` no project
    matches), checked by :func:`check_keep` and created."""
    keep = keep.absolute()
    check_keep(keep)
    try:
        keep.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"cannot create {keep}: {exc.strerror or exc}", hint="choose a folder you can write to"
        ) from exc
    return keep


def _temporary_root() -> Path:
    try:
        return Path(tempfile.mkdtemp(prefix="skillopt-exp-"))
    except OSError as exc:
        raise StorageError(
            f"cannot create a temporary folder in {tempfile.gettempdir()}: {exc.strerror or exc}",
            hint="point TMPDIR at a writable folder with free space",
        ) from exc


@contextmanager
def isolated_world(
    persona: Persona, sessions: Sequence[SimSession], keep: Path | None = None
) -> Iterator[PersonaWorld]:
    """A fresh world; engine state and user config point inside it for the life of the block."""
    root = _kept_root(Path(keep)) if keep is not None else _temporary_root()
    world = PersonaWorld(root, persona, tuple(sessions))
    for project in world.projects:
        project.mkdir(parents=True, exist_ok=True)
    saved = {k: v for k, v in os.environ.items() if k.startswith("SKILLOPT_SLEEP_")}
    for name in saved:
        del os.environ[name]
    os.environ["SKILLOPT_SLEEP_HOME"] = str(root / "state")
    os.environ["SKILLOPT_SLEEP_CONFIG"] = str(root / "no-user-config.toml")
    try:
        yield world
    finally:
        for name in _ISOLATED:
            os.environ.pop(name, None)
        os.environ.update(saved)
        if keep is None:
            _remove(root)


def _remove(root: Path) -> None:
    """``rmtree`` that a SIGTERM or Ctrl-C (raised as an exception mid-way) does not leave half
    done: a run stopped as it finished left its temporary world behind."""
    try:
        shutil.rmtree(root, ignore_errors=True)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
