"""What the live files hold now, against what a proposal expects them to hold.

Read only: adopt refuses a file that changed since staging (:func:`drifted`), rollback one that
changed since the adopt wrote it (:func:`changed_since_adopt`: edited by hand, or adopted over by
a later proposal), so neither silently replaces text nobody has reviewed.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, StorageError
from skillopt_sleep.stage.proposal import load_manifest, readable_manifest, sha256


def _in_the_way(path: Path) -> DriftError:
    return DriftError(
        f"{path} is not a regular file (a folder or a file stands where the skill file should be)",
        hint="move it aside or put the skill file back, then adopt again (or run a new night)",
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


def drifted(directory: Path) -> list[str]:
    """Live files that changed since the proposal was staged."""
    out = []
    for entry in load_manifest(directory)["files"]:
        live = read_live(Path(entry["live_path"]))
        expected = entry["live_sha256"]
        now = sha256(live) if live is not None else ""
        if now != expected:
            out.append(entry["live_path"])
    return out


def changed_since_adopt(directory: Path, backup: Path, files: list[dict[str, Any]]) -> list[str]:
    """Live files of the adopted proposal in ``directory`` whose text a rollback would lose:
    neither what the adopt wrote nor what it replaced (its backup in ``backup``). A file
    deleted since loses nothing: rollback puts the old one back."""
    out = []
    for index, entry in enumerate(files):
        live = read_live(Path(entry["live_path"]))
        saved = backup / f"{index:02d}.orig"
        before = saved.read_bytes() if saved.is_file() else None
        if live is not None and live not in (before, (directory / entry["staged"]).read_bytes()):
            out.append(entry["live_path"])
    return out


def adopted_over(directory: Path, paths: list[str], later: list[Path]) -> list[str]:
    """The adopted proposals among ``later`` that wrote one of ``paths`` after ``directory``."""
    out = []
    for other in later:
        if other.name <= directory.name:
            continue
        manifest = readable_manifest(other)  # a damaged one cannot be rolled back either
        if (
            manifest is not None
            and manifest.get("state") == "adopted"
            and any(entry["live_path"] in paths for entry in manifest["files"])
        ):
            out.append(other.name)
    return out
