"""Stage a night's proposal: the proposed files, a unified diff, a manifest, the reports.

    staging/<night-id>/
        manifest.json   state, and for each live file: its path, the sha256 it was made from
        files/NN-<name> the proposed content of each live file (and .base: what it was made from)
        diff.patch      unified diff, live -> proposed
        report.md       the report, decision first, cut to size (see stage/_bounds.py)
        report.html     the same report as one self-contained page
        families.md     every family in full, as the report cuts them
        report.json     every record of the night

The directory is built under a temporary name and renamed into place, so a killed night leaves
no half-staged proposal (only a ``.tmp-*`` directory that is ignored and cleaned up).

The diff is one ``patch`` and ``git apply`` read back: a file name holding a control or line
separator, a quote or a backslash is C-quoted as git quotes it (``"/p/new\\nline/SKILL.md"``), one
holding a space ends with a tab, lines break at ``\\n`` only, and a last line without one is
marked. A live file that is a link gets a ``# `` line above its headers naming the file the link
leads to (where ``adopt`` writes); the manifest records it as ``target``.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.engine.state import (
    ProjectState,
    make_private_dir,
    read_json,
    storage_error,
    write_json,
    write_private,
)

_UNTOUCHED = "live files are untouched"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileChange:
    live_path: Path
    kind: str  # "skill" | "managed" | "memory"
    live: bytes | None  # None: the file does not exist yet
    proposed: str
    accepted_edits: int = 0


_UNUSUAL = re.compile(
    '[\x00-\x1f\x7f-\x9f"\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff'
    + ("" if os.sep == "\\" else "\\\\")  # a backslash is the separator on Windows
    + "]"
)
_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f"}
_C_ESCAPES.update({"\r": "\\r", '"': '\\"', "\\": "\\\\"})


def _quoted(path: str) -> str:
    if not _UNUSUAL.search(path):
        return path

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        octal = "".join(f"\\{b:03o}" for b in char.encode("utf-8", "surrogateescape"))
        return _C_ESCAPES.get(char, octal)

    return f'"{_UNUSUAL.sub(escape, path)}"'


def diff_name(path: str) -> str:
    """``path`` as a diff header names it (see the module docstring)."""
    quoted = _quoted(path)
    return f"{quoted}\t" if " " in path and quoted == path else quoted


def _lines(text: str) -> list[str]:
    """``text`` split as ``patch`` reads it: at ``\\n`` only (not at a form feed or U+2028)."""
    parts = text.split("\n")
    return [f"{part}\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def link_note(path: Path) -> str:
    """A diff comment naming where ``path`` leads when it is (or lies under) a link, else ""."""
    real = os.path.realpath(path)
    return f"# {_quoted(str(path))} is a link to {_quoted(real)}\n" if real != str(path) else ""


def unified_diff(changes: Sequence[FileChange]) -> str:
    parts: list[str] = []
    for change in changes:
        before = _lines((change.live or b"").decode("utf-8", "replace"))
        after = _lines(change.proposed)
        name = diff_name(str(change.live_path))
        lines = list(
            difflib.unified_diff(
                before,
                after,
                fromfile=name if change.live is not None else "/dev/null",
                tofile=name,
            )
        )
        if lines:
            parts.append(link_note(change.live_path))
        parts.extend(
            line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n"
            for line in lines
        )
    return "".join(parts)


def proposed_bytes(change: FileChange) -> bytes:
    """The bytes to stage for ``change``. A night reads a live file that is not UTF-8 (a
    Latin-1 ``Café``) with each odd byte replaced, so its proposed text holds U+FFFD where
    the user wrote those bytes; the engine changes only the learned block, so that block is
    put into the live bytes as they are instead, and the user's text stays byte for byte."""
    if change.live is None:
        return change.proposed.encode("utf-8")
    try:
        change.live.decode("utf-8")
    except UnicodeDecodeError:
        from skillopt_sleep.skills import learned_body, with_learned

        live = change.live.decode("utf-8", "surrogateescape")
        merged = with_learned(live, learned_body(change.proposed))
        return merged.encode("utf-8", "surrogateescape")
    return change.proposed.encode("utf-8")


def staged_name(index: int, change: FileChange) -> str:
    parent = change.live_path.parent.name or "root"
    return f"files/{index:02d}-{parent}-{change.live_path.name}"


def stage(
    state: ProjectState,
    night_id: str,
    changes: Sequence[FileChange],
    reports: dict[str, str],
    created_at: str = "",
) -> Path:
    """Write the proposal atomically and return its directory. ``created_at``: when the night
    finished, on its clock (a demo's simulated one); default now."""
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
            proposed = proposed_bytes(change)
            write_private(tmp / staged, proposed)
            if change.live is not None:
                write_private(tmp / f"{staged}.base", change.live)
            files.append(
                {
                    "live_path": str(change.live_path),
                    "target": os.path.realpath(change.live_path),  # where the night read it
                    "kind": change.kind,
                    "created": change.live is None,
                    "live_sha256": sha256(change.live) if change.live is not None else "",
                    "proposed_sha256": sha256(proposed),
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
                "created_at": created_at or datetime.now(timezone.utc).isoformat(),
                "state": "pending",
                "files": files,
            },
        )
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except StorageError as exc:  # a file of it: said once, with its own fix
        shutil.rmtree(tmp, ignore_errors=True)
        raise StorageError(
            f"cannot stage the proposal in {final}: {exc.message}", hint=exc.hint
        ) from None
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise storage_error("stage the proposal in", final, exc, also=_UNTOUCHED) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    from skillopt_sleep.stage import retention

    retention.after_stage(state, final)
    return final


def load_manifest(directory: Path) -> dict[str, Any]:
    """The proposal's manifest, its shape checked once here: every reader indexes its files'
    ``live_path``, so a manifest edited into another shape (``"files": [1]``) is
    damaged like one that is not JSON, not a TypeError deep in ``status``."""
    path = directory / "manifest.json"
    manifest = read_json(path)
    if manifest is None:
        raise StorageError(f"{directory} holds no valid proposal manifest")
    wrong = _manifest_shape_error(manifest)
    if wrong:
        raise StorageError(
            f"{path} is damaged: {wrong}", hint=f"move {directory} aside; nothing else uses it"
        )
    return cast("dict[str, Any]", manifest)


def _manifest_shape_error(manifest: dict[str, Any]) -> str:
    """What is wrong with the shape of a manifest's JSON object ("" when nothing is)."""
    files = manifest.get("files")
    if not isinstance(files, list):
        return "its files are not a list"
    for index, entry in enumerate(files):
        if not isinstance(entry, dict):
            return f"file {index} is not an object"
        if not isinstance(entry.get("live_path"), str) or not entry["live_path"]:
            return f"file {index} has no live_path"
        if not isinstance(entry.get("staged", ""), str):
            return f"file {index} has a staged name that is not a string"
        if not isinstance(entry.get("accepted_edits", 0), int):
            return f"file {index} has a non-integer accepted_edits"
    for key in ("state", "created_at", "night_id"):
        if key in manifest and not isinstance(manifest[key], str):
            return f"its {key} is not a string"
    return ""


def staged_bytes(directory: Path, entry: dict[str, Any]) -> bytes:
    """The proposed content of one file of the proposal in ``directory``; a staged file that
    is missing, unreadable or not the bytes its manifest pins (``proposed_sha256``: cut short
    or edited since staging) is a StorageError naming the way out (an adopt must not find that
    out half way through its writes, nor write a damaged file over the user's)."""
    path = directory / str(entry.get("staged") or "(no staged file named)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _damaged(directory, f"cannot read {path} ({exc.strerror or exc})") from None
    pinned = entry.get("proposed_sha256")
    if isinstance(pinned, str) and pinned and sha256(data) != pinned:
        raise _damaged(
            directory, f"{path} is not the file it staged (its sha256 is not the manifest's)"
        )
    return data


def _damaged(directory: Path, why: str) -> StorageError:
    return StorageError(
        f"proposal {directory.name} is damaged: {why}",
        hint=f"reject it (`skillopt-sleep reject {directory.name}`); the next night stages a "
        "new proposal",
    )


def readable_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest, or None when it is damaged: one damaged proposal must not stop what reads
    every proposal (status, a night, adopt or reject of another one); a command that names it
    still says what is wrong (:func:`load_manifest`)."""
    try:
        return load_manifest(directory)
    except StorageError:
        return None


def damaged_note(directory: Path) -> str:
    """What ``status`` says of a proposal whose manifest cannot be read, and the way out."""
    return (
        f"proposal {directory.name} cannot be read (its manifest.json is damaged): "
        f"move {directory} aside; nothing else uses it"
    )


# What to do instead, by the state a named proposal is in (adopt and reject need "pending").
_INSTEAD = {
    "adopted": "it is live: `skillopt-sleep rollback {id}` puts the files back as they were",
    "rejected": "its edits are in the rejected buffer; the next night stages a new proposal",
    "rolled back": "the next night stages a new proposal from the files as they are now",
    "superseded": "a newer proposal replaced it, or a later adopt or rollback changed its "
    "files: `skillopt-sleep proposals` shows what is pending",
}


def require_pending(directory: Path, manifest: dict[str, Any]) -> None:
    """A UsageError, with what to do instead, unless the proposal is pending (adopt, reject)."""
    state = manifest.get("state")
    if state != "pending":
        raise UsageError(
            f"proposal {directory.name} is {state}, not pending",
            hint=_INSTEAD.get(str(state), "`skillopt-sleep proposals` lists them all").format(
                id=directory.name
            ),
        )


def set_state(directory: Path, new_state: str, **extra: Any) -> None:
    manifest = load_manifest(directory)
    manifest.update(state=new_state, **extra)
    write_json(directory / "manifest.json", manifest)
