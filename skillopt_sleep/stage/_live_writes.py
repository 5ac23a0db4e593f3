"""Writing the live files an adopt or rollback changes, and the backups it keeps of them.

Each live file is replaced atomically (temp + rename), through its link when it is one, with
the mode it had (a new one: the umask's, not the engine's private 0600). A write that fails is a
StorageError saying what to make writable. :func:`restore` puts the files back as an adopt found
them, byte for byte, from ``backups/<id>/NN.orig`` (stored once per content, and checked against
the sha256 the adopt recorded before anything is written: .backup_store).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import stat
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_core.rundir import atomic_write_bytes, link_target
from skillopt_sleep.engine.state import make_private_dir
from skillopt_sleep.stage import backup_store
from skillopt_sleep.stage._live import read_live

_TEMP_PART = re.compile(r"[a-z0-9_]{8}")  # the random part of a tempfile.mkstemp name


def _umask_mode() -> int:
    """The mode a new file gets under the process umask. Read from /proc where there is one:
    setting the umask to read it back races with threads creating files (the MCP server)."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_live(path: Path, data: bytes, action: str = "adopt") -> None:
    target = link_target(path)
    try:
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _umask_mode()
        atomic_write_bytes(target, data, mode=mode)
    except OSError as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
        raise StorageError(
            f"cannot write {path}: {cause.strerror or cause}",
            hint=f"make {target.parent} writable or free some disk space, then {action} again",
        ) from None


def remove_temp_files(path: Path) -> None:
    """Delete the temp file a killed atomic write left beside ``path`` (``.<name>.XXXXXXXX``)."""
    for live in {path, link_target(path)}:
        prefix = f".{live.name}."
        for leftover in live.parent.glob(glob.escape(prefix) + "*"):
            if _TEMP_PART.fullmatch(leftover.name[len(prefix) :]) and not leftover.is_symlink():
                with contextlib.suppress(OSError):
                    leftover.unlink()


def missing_folders(files: list[dict[str, Any]]) -> list[str]:
    """The folders writing ``files`` will create: each live file's ancestors that do not exist."""
    out: list[str] = []
    for entry in files:
        folder = link_target(Path(entry["live_path"])).parent
        while not os.path.lexists(folder) and str(folder) not in out:
            out.append(str(folder))
            folder = folder.parent
    return out


def restore(
    saved: list[bytes | None],
    files: list[dict[str, Any]],
    created_folders: list[str],
    action: str = "adopt",
) -> None:
    """Put each live file back as the adopt found it: ``saved``, its backup (read and checked
    by :func:`.backup_store.read_verified`, or what :func:`back_up` just saved), or no file
    when it had none; then remove the folders the adopt created, deepest first, each only if
    empty. A file already as it was is not written (a read-only folder an adopt failed on
    stays untouched)."""
    put_back(files, saved, action)
    for folder in sorted(created_folders, key=lambda f: len(Path(f).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or gone): it stays
            Path(folder).rmdir()


def _remove_live(path: Path, action: str) -> None:
    try:
        link_target(path).unlink(missing_ok=True)
    except OSError as exc:
        raise StorageError(
            f"cannot remove {path}: {exc.strerror or exc}",
            hint=f"make {link_target(path).parent} writable, then {action} again",
        ) from None


def put_back(files: list[dict[str, Any]], found: list[bytes | None], action: str) -> None:
    """Write each live file as ``found`` holds it (None: no file), undoing a cut-short write."""
    for entry, data in zip(files, found, strict=True):
        live = Path(entry["live_path"])
        if read_live(live) != data:
            if data is None:
                _remove_live(live, action)
            else:
                write_live(live, data, action)


def back_up(backup: Path, files: list[dict[str, Any]]) -> list[bytes | None]:
    """Save every live file as it is now, each content stored once (:mod:`.backup_store`);
    stale backups of an earlier, undone adopt go first, so a missing backup always means "no
    file before this adopt". Returns what it saved (None: no file)."""
    make_private_dir(backup)
    for stale in backup.glob("*.orig"):
        stale.unlink()
    saved = [read_live(Path(entry["live_path"])) for entry in files]
    for index, live in enumerate(saved):
        if live is not None:
            backup_store.keep(backup.parent, backup / f"{index:02d}.orig", live)
    return saved


def keep_changed(backup: Path, files: list[dict[str, Any]], changed: list[str]) -> None:
    """Save each changed live file as ``NN.at-rollback`` beside the adopt's backups."""
    for index, entry in enumerate(files):
        if entry["live_path"] in changed:
            live = read_live(Path(entry["live_path"]))
            if live is not None:
                backup_store.keep(backup.parent, backup / f"{index:02d}.at-rollback", live)
