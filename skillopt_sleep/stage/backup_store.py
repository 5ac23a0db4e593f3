"""Adopt backups kept once per content.

Each adopt keeps the live files it replaces as ``backups/<id>/NN.orig``: what ``rollback``
restores, and where a user finds their text again. Proposal after proposal adopted over the same
file (a rollback, or the same file put back by hand, in between) would store the same bytes once
more each time. So each distinct content is stored once, as ``backups/by-sha256/<digest>``, and
every ``NN.orig`` holding it is a hard link to that file. Rollback still reads ``NN.orig``, so
it stays byte for byte; where the filesystem has no hard links, ``NN.orig`` is a copy, as before.
Backup files are only ever replaced (atomic writes) or unlinked, never written in place, so a
link shared by several adopts cannot change under one of them. What a rollback or a recovery
restores is read once and checked against the sha256 the adopt recorded (:func:`read_verified`):
a backup cut short or edited by hand is refused, never written over a live file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_sleep.engine.state import write_private
from skillopt_sleep.stage.proposal import sha256

STORE = "by-sha256"


def keep(backups: Path, target: Path, data: bytes) -> None:
    """Save ``data`` as ``target`` (a ``NN.orig`` under ``backups/<id>``), stored once per
    content under ``backups``."""
    stored = backups / STORE / sha256(data)
    if not _holds(stored, data):  # missing, or damaged: written (again) whole
        write_private(stored, data)
    try:
        os.link(stored, target)
    except OSError:  # no hard links here (or a name in the way): a copy of its own
        write_private(target, data)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def read_verified(
    backup: Path, files: list[dict[str, Any]], recorded: object = None
) -> list[bytes | None]:
    """Each file's backup ``NN.orig`` (None: the adopt found no file there), read once and
    checked before a rollback or a recovery writes any of it: a backup cut short or edited
    since would be restored "byte for byte" over the user's file. The sha256 to check is the
    one the adopt recorded (``recorded``: its journal "begin" lists one per file, None where
    it made the file), else, for an adopt recorded before that, the name of the stored content
    ``NN.orig`` is a hard link to. A damaged or missing backup is a :class:`DamagedBackup`
    naming it; one that cannot be read, a StorageError saying to fix its permissions."""
    digests = _listing(recorded, len(files))
    out: list[bytes | None] = []
    for index, entry in enumerate(files):
        saved = backup / f"{index:02d}.orig"
        try:
            data: bytes | None = saved.read_bytes()
        except FileNotFoundError:
            data = None
        except OSError as exc:
            raise StorageError(
                f"cannot read the backup {saved}: {exc.strerror or exc}",
                hint="fix its permissions, then run the same command again",
            ) from None
        expected = digests[index] if digests is not None else _linked_as(saved, data)
        if (sha256(data) if data is not None else None) != expected:
            raise _damaged(saved, entry, data is None)
        out.append(data)
    return out


def _listing(recorded: object, count: int) -> list[str | None] | None:
    """``recorded`` when it is one sha256 (or None) per file, else None (not recorded)."""
    if not isinstance(recorded, list) or len(recorded) != count:
        return None
    return recorded if all(d is None or isinstance(d, str) for d in recorded) else None


def _linked_as(saved: Path, data: bytes | None) -> str | None:
    """The name of the stored content ``saved`` is a hard link to (its sha256 when it was
    saved); its own sha256 when that cannot be told (a copy of its own, or none stored)."""
    if data is None:
        return None
    with contextlib.suppress(OSError):
        if saved.stat().st_nlink > 1:
            for stored in (saved.parent.parent / STORE).iterdir():
                if os.path.samefile(stored, saved):
                    return stored.name
    return sha256(data)


class DamagedBackup(StorageError):
    """A backup that is not what its adopt saved: restoring it would not undo the adopt."""


def _damaged(saved: Path, entry: dict[str, Any], missing: bool) -> DamagedBackup:
    what = "is missing" if missing else "is damaged (its bytes are not the ones the adopt saved)"
    return DamagedBackup(
        f"the backup {saved} of {entry['live_path']} {what}",
        hint=f"it cannot be restored: if you need the text {entry['live_path']} held before "
        "the adopt, put it back by hand from your own copy (git, an editor's history); the "
        "next night starts from the files as they are",
    )
