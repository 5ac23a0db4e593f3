"""What the live files hold now, against what a proposal expects them to hold.

Read only: adopt refuses a file that changed since staging (:func:`drift`), rollback one that
changed since the adopt wrote it (:func:`changed_since_adopt`: edited by hand, or adopted over by
a later proposal), so neither silently replaces text nobody has reviewed.
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, StorageError
from skillopt_sleep.stage.proposal import load_manifest, readable_manifest, sha256, staged_bytes

_BOM = b"\xef\xbb\xbf"


def _in_the_way(path: Path) -> DriftError:
    return DriftError(
        f"{path} is not a regular file (a folder or a file stands where the skill file should be)",
        hint="move it aside or put the skill file back, then run the same command again",
    )


def read_live(path: Path) -> bytes | None:
    """The live bytes (through a symlink), or None when there is no file. Anything else in the
    way is a DriftError even for a forced adopt: nothing could be written there."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise _in_the_way(path)
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except (NotADirectoryError, IsADirectoryError):
        raise _in_the_way(path) from None
    except OSError as exc:
        raise StorageError(
            f"cannot read {path}: {exc.strerror or exc}", hint="fix the file's permissions"
        ) from None


def drift(directory: Path) -> list[tuple[str, str]]:
    """Each live file that changed since the proposal was staged, and how: "deleted", "created",
    "only its line endings changed", "only its byte order mark changed" or "edited" (a user who
    did not edit it sees what their editor or ``git checkout`` did)."""
    out = []
    for entry in load_manifest(directory)["files"]:
        path = Path(entry["live_path"])
        live = read_live(path)
        if (sha256(live) if live is not None else "") != entry["live_sha256"]:
            staged_from = directory / f"{entry['staged']}.base" if entry["live_sha256"] else None
            out.append((str(path), _how(path, live, staged_from)))
    return out


def _how(path: Path, now: bytes | None, staged_from: Path | None) -> str:
    if now is None:
        link = (
            f": a link to {os.path.realpath(path)}, which is missing" if path.is_symlink() else ""
        )
        return f"deleted{link}"
    if staged_from is None:
        return "created"
    try:
        before = staged_from.read_bytes()
    except OSError:  # a proposal staged before the text it was made from was kept
        return "edited"
    if before.replace(b"\r\n", b"\n") == now.replace(b"\r\n", b"\n"):
        return "only its line endings changed"
    if before.removeprefix(_BOM) == now.removeprefix(_BOM):
        return "only its byte order mark changed"
    return "edited"


def changed_since_adopt(
    directory: Path, saved: list[bytes | None], files: list[dict[str, Any]]
) -> list[str]:
    """Live files of the adopted proposal in ``directory`` whose text a rollback would lose:
    neither what the adopt wrote nor what it replaced (``saved``, its verified backups; None: it
    made the file). A file deleted since loses nothing: rollback puts the old one back."""
    out = []
    for entry, before in zip(files, saved, strict=True):
        live = read_live(Path(entry["live_path"]))
        if live is not None and live not in (before, _adopted(directory, entry)):
            out.append(entry["live_path"])
    return out


def _adopted(directory: Path, entry: dict[str, Any]) -> bytes | None:
    """What the adopt wrote, or None when its staged file is gone or damaged (then a live file
    that is not its backup counts as changed: ``rollback --force`` keeps it first)."""
    try:
        return staged_bytes(directory, entry)
    except StorageError:
        return None


def adopted_over(directory: Path, paths: list[str], later: list[Path]) -> list[str]:
    """The adopted proposals among ``later`` that wrote one of ``paths`` after ``directory``'s
    adopt, oldest adopt first. "After" is by adopt time, not id: a proposal staged earlier can
    be adopted later (``--force`` over one whose adopt failed to mark it superseded)."""
    since = adopt_order(directory.name, readable_manifest(directory) or {})
    out = []
    for other in later:
        manifest = readable_manifest(other)  # a damaged one cannot be rolled back either
        if (
            manifest is not None
            and manifest.get("state") == "adopted"
            and adopt_order(other.name, manifest) > since
            and any(entry["live_path"] in paths for entry in manifest["files"])
        ):
            out.append((adopt_order(other.name, manifest), other.name))
    return [name for _, name in sorted(out)]


def adopt_order(name: str, manifest: dict[str, Any]) -> tuple[float, str]:
    """When the proposal was adopted, then its id. An adopt an older version recorded without
    its time was made before every adopt that records one: those come first, by id."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(str(manifest.get("adopted_at")))
    except ValueError:
        return -math.inf, name
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp(), name
