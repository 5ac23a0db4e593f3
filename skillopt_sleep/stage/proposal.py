"""Stage a night's proposal: the proposed files, a unified diff, a manifest, the reports.

    staging/<night-id>/
        manifest.json   state, and for each live file: its path, the sha256 it was made from
        files/NN-<name> the proposed content of each live file (and .base: what it was made from)
        diff.patch      unified diff, live -> proposed
        report.md / report.json / report.html

The directory is built under a temporary name and renamed into place, so a killed night leaves
no half-staged proposal (only a ``.tmp-*`` directory that is ignored and cleaned up).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_sleep.engine.state import (
    ProjectState,
    make_private_dir,
    read_json,
    write_json,
    write_private,
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    live_path: Path
    kind: str  # "skill" | "managed" | "memory"
    live: bytes | None  # None: the file does not exist yet
    proposed: str
    accepted_edits: int = 0


def unified_diff(changes: Sequence[FileChange]) -> str:
    parts: list[str] = []
    for change in changes:
        before = (change.live or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = change.proposed.splitlines(keepends=True)
        parts.extend(
            difflib.unified_diff(
                before,
                after,
                fromfile=str(change.live_path) if change.live is not None else "/dev/null",
                tofile=str(change.live_path),
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in parts)


def staged_name(index: int, change: FileChange) -> str:
    parent = change.live_path.parent.name or "root"
    return f"files/{index:02d}-{parent}-{change.live_path.name}"


def stage(
    state: ProjectState,
    night_id: str,
    changes: Sequence[FileChange],
    reports: dict[str, str],
) -> Path:
    """Write the proposal atomically and return its directory."""
    final = state.proposal_dir(night_id)
    staging_root = make_private_dir(final.parent)
    for leftover in staging_root.glob(".tmp-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    tmp = staging_root / f".tmp-{night_id}-{os.getpid()}"
    make_private_dir(tmp / "files")
    try:
        files: list[dict[str, Any]] = []
        for index, change in enumerate(changes):
            staged = staged_name(index, change)
            write_private(tmp / staged, change.proposed.encode("utf-8"))
            if change.live is not None:
                write_private(tmp / f"{staged}.base", change.live)
            files.append(
                {
                    "live_path": str(change.live_path),
                    "kind": change.kind,
                    "created": change.live is None,
                    "live_sha256": sha256(change.live) if change.live is not None else "",
                    "proposed_sha256": sha256(change.proposed.encode("utf-8")),
                    "staged": staged,
                    "accepted_edits": change.accepted_edits,
                }
            )
        write_private(tmp / "diff.patch", unified_diff(changes))
        for name, text in reports.items():
            write_private(tmp / name, text)
        write_json(
            tmp / "manifest.json",
            {
                "night_id": night_id,
                "project": str(state.project),
                "created_at": datetime.now(timezone.utc).isoformat(),
                "state": "pending",
                "files": files,
            },
        )
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StorageError(
            f"cannot stage the proposal in {final}: {exc.strerror or exc}",
            hint="free some disk space; the live files were not touched",
        ) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def load_manifest(directory: Path) -> dict[str, Any]:
    manifest = read_json(directory / "manifest.json")
    if not isinstance(manifest, dict) or "files" not in manifest:
        raise StorageError(f"{directory} holds no valid proposal manifest")
    return manifest


def set_state(directory: Path, new_state: str, **extra: Any) -> None:
    manifest = load_manifest(directory)
    manifest.update(state=new_state, **extra)
    write_json(directory / "manifest.json", manifest)
