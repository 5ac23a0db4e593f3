"""File plumbing shared by every kind of change: read, atomic write, back up, tidy up."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from skillopt_core.rundir import atomic_write_bytes, link_target
from skillopt_sleep.install.specs import InstallError

BOM = "\ufeff"  # a UTF-8 byte order mark, as Windows editors save it; the harnesses read past it

MOVE_ASIDE = "move {path} aside (or fix it), then run the same command again"


def read(path: Path) -> bytes | None:
    """The file's bytes, None when absent; anything unreadable (a directory, no permission) is
    an :class:`InstallError` naming the file."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(
            path, f"cannot read {path}: {exc.strerror or exc}", hint=MOVE_ASIDE.format(path=path)
        ) from exc


def read_text(path: Path) -> str | None:
    raw = read(path)
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(
            path, f"{path} is not UTF-8 text ({exc.reason})", hint=MOVE_ASIDE.format(path=path)
        ) from exc


def check_writable(path: Path) -> None:
    """Fail before writing anything when ``path`` could not be written (read-only folder, a file
    where a folder should be): a half-installed harness is worse than none."""
    final = link_target(path)
    probe = final.parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise InstallError(
            path, f"cannot write {path}: {probe} is not a folder", hint=f"move {probe} aside"
        )
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InstallError(
            path, f"cannot write {path}: {probe} is read-only", hint=f"chmod u+w {probe}"
        )


def missing_dirs(path: Path, recorded: Sequence[str] = ()) -> list[str]:
    """The folders above ``path`` that do not exist, deepest first, with the ``recorded`` ones
    (made by an earlier run that was killed before it wrote ``path``)."""
    missing = set(recorded)
    probe = path.parent
    while not probe.exists() and probe != probe.parent:
        missing.add(str(probe))
        probe = probe.parent
    return sorted(missing, key=lambda folder: len(Path(folder).parts), reverse=True)


def clear_temps(path: Path) -> None:
    """Remove what a killed atomic write of ``path`` left beside it: ``.NAME.XXXXXXXX``, the temp
    file of :func:`skillopt_core.rundir.atomic_write_bytes`. Runs hold the manifest's lock, so no
    live write of ours owns one."""
    final = link_target(path)
    temp = re.compile(rf"\.{re.escape(final.name)}\.[a-z0-9_]{{8}}")
    try:
        names = os.listdir(final.parent)
    except OSError:
        return
    for name in names:
        if temp.fullmatch(name):
            with contextlib.suppress(OSError):
                (final.parent / name).unlink()


def write(path: Path, data: bytes, *, executable: bool = False) -> None:
    """Atomically replace ``path`` (its symlink's target when it is one), keeping an existing
    file's permission bits: user configs holding tokens are often 0600."""
    final = link_target(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    clear_temps(final)
    try:
        mode = stat.S_IMODE(final.stat().st_mode) | (0o111 if executable else 0)
    except FileNotFoundError:
        mode = 0o755 if executable else 0o644
    atomic_write_bytes(final, data, mode=mode)


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
