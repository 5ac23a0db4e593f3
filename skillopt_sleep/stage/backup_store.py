"""Adopt backups kept once per content.

Each adopt keeps the live files it replaces as ``backups/<id>/NN.orig``: what ``rollback``
restores, and where a user finds their text again. Proposal after proposal adopted over the same
file (a rollback, or the same file put back by hand, in between) would store the same bytes once
more each time. So each distinct content is stored once, as ``backups/by-sha256/<digest>``, and
every ``NN.orig`` holding it is a hard link to that file. Rollback still reads ``NN.orig``, so
it stays byte for byte; where the filesystem has no hard links, ``NN.orig`` is a copy, as before.
Backup files are only ever replaced (atomic writes) or unlinked, never written in place, so a
link shared by several adopts cannot change under one of them.
"""

from __future__ import annotations

import os
from pathlib import Path

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
