"""File plumbing shared by every kind of change: read, atomic write, back up, tidy up."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from skillopt_core.rundir import atomic_write_bytes


def read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def missing_dirs(path: Path) -> list[str]:
    missing: list[str] = []
    probe = path.parent
    while not probe.exists() and probe != probe.parent:
        missing.append(str(probe))
        probe = probe.parent
    return missing  # deepest first


def write(path: Path, data: bytes, *, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o755 if executable else 0o644
    atomic_write_bytes(path, data, mode=mode)


def backup(path: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    target = path.with_name(f"{path.name}.skillopt-sleep-backup")
    if target.exists():
        target = path.with_name(f"{path.name}.skillopt-sleep-backup-{stamp}")
    shutil.copy2(path, target)
    return target


def remove_empty(dirs: Sequence[str]) -> None:
    for directory in dirs:  # deepest first
        try:
            os.rmdir(directory)
        except OSError:
            return
