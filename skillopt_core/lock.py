"""An exclusive, process-level lock on a directory, so two runs never write the same state.

The lock is an OS file lock (``fcntl.flock`` / ``msvcrt.locking``) held on ``DIR/.lock`` for the
life of the run: a killed process releases it automatically, so there are no stale locks to clean.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from skillopt_core.errors import BusyError, StorageError


class DirectoryLocked(BusyError):
    """Another process holds the lock; the message names it and what to do."""


# :func:`holder` takes the lock for an instant to test it (``status``, an MCP poll), so a run that
# finds it taken tries again for this long before it gives up: a real holder keeps it far longer.
PATIENCE_S = 0.25
_RETRY_S = 0.01


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


@contextmanager
def exclusive(directory: Path, what: str = "run", elsewhere: str = "") -> Iterator[None]:
    """Hold ``directory``'s lock for the block; ``what`` names this holder in the lock file, so
    a process turned away learns which command holds it (``elsewhere``: another way out than
    waiting, e.g. another output directory)."""
    path = directory / ".lock"
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)  # a new one is private
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with contextlib.suppress(OSError):  # a lock file an older version made 0644
            os.fchmod(fd, 0o600)
    except OSError as exc:
        raise StorageError(
            f"cannot use {directory} for the {what}: {exc.strerror or exc}",
            hint="choose a directory you can write to (check its permissions and free space)",
        ) from exc
    try:
        if not _lock_soon(fd):
            os.lseek(fd, 0, os.SEEK_SET)
            pid, _, theirs = os.read(fd, 256).decode("utf-8", "replace").partition("\n")
            way_out = f"wait for it to finish{f' or {elsewhere}' if elsewhere else ''}"
            raise DirectoryLocked(
                f"another {theirs.strip() or 'process'} is using {directory} "
                f"(pid {pid.strip() or 'unknown'}); {way_out}"
            )
        _record_holder(fd, what)
        yield
    finally:
        os.close(fd)


@contextmanager
def exclusive_waiting(
    directory: Path, what: str, timeout: float, poll: float = 0.05
) -> Iterator[None]:
    """:func:`exclusive`, waiting up to ``timeout`` seconds for another holder to let go (for
    locks held only for a short step); DirectoryLocked after that. Only taking the lock is
    retried, never the block."""
    deadline = time.monotonic() + timeout
    while True:
        held = contextlib.ExitStack()
        try:
            held.enter_context(exclusive(directory, what))
        except DirectoryLocked:
            if time.monotonic() >= deadline:
                raise
            time.sleep(poll)
            continue
        with held:
            yield
        return


def _lock_soon(fd: int) -> bool:
    """Take the lock, waiting up to :data:`PATIENCE_S` for a holder that only tests it."""
    give_up = time.monotonic() + PATIENCE_S
    while not _try_lock(fd):
        if time.monotonic() >= give_up:
            return False
        time.sleep(_RETRY_S)
    return True


def _record_holder(fd: int, what: str) -> None:
    """Write this process as the holder, for a process turned away to name. Only a courtesy:
    the lock is the ``flock``, so a full disk (or a failing one) that refuses these few bytes
    must not fail the run here; its own first write says what is wrong."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n{what}".encode())


@dataclass(frozen=True)
class Holder:
    """Who holds a lock, as it recorded itself: its pid and the command (``what``)."""

    pid: str
    what: str


def holder(directory: Path) -> str | None:
    """The pid recorded by the process holding ``directory``'s lock, or None when it is free."""
    held = held_by(directory)
    return held.pid if held else None


def held_by(directory: Path) -> Holder | None:
    """The process holding ``directory``'s lock (``unknown`` where it recorded nothing yet), or
    None when it is free."""
    path = directory / ".lock"
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        if _try_lock(fd):
            return None
        os.lseek(fd, 0, os.SEEK_SET)
        pid, _, what = os.read(fd, 256).decode("utf-8", "replace").partition("\n")
        return Holder(pid.strip() or "unknown", what.strip() or "unknown")
    finally:
        os.close(fd)
