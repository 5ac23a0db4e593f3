"""What a failed write to the state directory tells the user: the path, the OS reason, and
advice chosen by the errno (a read-only file system needs another folder, not free space)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from skillopt_core.errors import StorageError
from skillopt_sleep.paths import private_dir, private_file

_READ_ONLY = (
    "the state directory is on a read-only file system (a sandbox such as Codex's "
    "workspace-write, or a read-only mount): set SKILLOPT_SLEEP_HOME to a writable folder or run "
    "outside the sandbox"
)
_NO_PERMISSION = (
    "you may not write to the state directory: fix its permissions (it must be yours and "
    "writable) or set SKILLOPT_SLEEP_HOME to a folder you can write to"
)
_NO_SPACE = (
    "the disk (or your quota) is full: free some disk space, or set SKILLOPT_SLEEP_HOME to a "
    "folder on another disk"
)
_HINTS = {
    errno.EROFS: _READ_ONLY,
    errno.EACCES: _NO_PERMISSION,
    errno.EPERM: _NO_PERMISSION,
    errno.ENOSPC: _NO_SPACE,
    getattr(errno, "EDQUOT", errno.ENOSPC): _NO_SPACE,  # no EDQUOT on Windows
}


def storage_hint(exc: OSError) -> str:
    """What to do about ``exc``, an OS error writing the state directory, chosen by its errno
    (a read-only file system needs another folder, not free space)."""
    return _HINTS.get(
        exc.errno or 0,
        "check that the state directory is writable and its disk has space, or set "
        "SKILLOPT_SLEEP_HOME to a writable folder",
    )


def storage_error(doing: str, path: Path, exc: OSError, *, also: str = "") -> StorageError:
    """``exc`` as the StorageError the user sees: what could not be done to ``path`` (and to
    which file, when the OS names another one, such as a parent it could not create), the OS
    reason, and the :func:`storage_hint` (``also``: what to add, e.g. live files are untouched)."""
    where = str(path)
    named = Path(os.fsdecode(exc.filename)) if exc.filename else path
    if named != path and named.parent != path.parent:  # not its temporary sibling
        where += f" ({named})"
    hint = storage_hint(exc) + (f"; {also}" if also else "")
    return StorageError(f"cannot {doing} {where}: {exc.strerror or exc}", hint=hint)


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) readable by the user only (:func:`paths.private_dir`);
    a failure is a StorageError that says what to do."""
    try:
        return private_dir(path)
    except OSError as exc:
        raise storage_error("create the state directory", path, exc) from None


def make_private_file(path: Path) -> Path:
    """:func:`paths.private_file`, a failure being a StorageError that says what to do."""
    try:
        return private_file(path)
    except OSError as exc:
        raise storage_error("write to the state file", path, exc) from None
