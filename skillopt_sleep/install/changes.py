"""Apply and undo the installer's changes (see :mod:`.specs`): files and harness commands here,
JSON keys in :mod:`.edit_json`, marked text blocks in :mod:`.edit_block`.

Rules shared by all: what is already as desired is a no-op; what we wrote earlier (hash in the
manifest) is updated in place; anything else that is in the way is backed up first and reported,
never silently overwritten. Undo removes only what still has the hash we recorded, restores a
backup, and removes the directories and files it created when they are left empty.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from skillopt_sleep.install import _fs
from skillopt_sleep.install.edit_block import apply_block, block_text, undo_block
from skillopt_sleep.install.edit_json import apply_json, undo_json
from skillopt_sleep.install.manifest import Entry, Manifest, sha256
from skillopt_sleep.install.specs import (
    Action,
    BlockSpec,
    CommandSpec,
    FileSpec,
    JsonKeySpec,
    Spec,
    Verb,
)

# --- files -------------------------------------------------------------------------------------


def _apply_file(spec: FileSpec, manifest: Manifest, dry_run: bool) -> Action:
    desired = spec.content.encode("utf-8")
    current = _fs.read(spec.path)
    entry = manifest.find(spec.harness, str(spec.path))
    new = Entry(spec.harness, "file", str(spec.path), sha256(desired))
    if current == desired:
        if entry is None and not dry_run:
            manifest.put(new)
        return Action("unchanged", str(spec.path))
    if current is None:
        verb: Verb = "create"
        new.created, new.created_dirs = True, _fs.missing_dirs(spec.path)
    elif entry is not None and sha256(current) == entry.sha256:
        verb = "update"
        new.created, new.created_dirs, new.backup = entry.created, entry.created_dirs, entry.backup
    else:
        verb = "replace"
    detail = ""
    if not dry_run:
        if verb == "replace":
            new.backup = str(_fs.backup(spec.path))
            if entry is not None:
                new.created, new.created_dirs = entry.created, entry.created_dirs
            detail = f"edited or foreign file backed up to {new.backup}"
        _fs.write(spec.path, desired, executable=spec.executable)
        manifest.put(new)
    elif verb == "replace":
        detail = "would back up the existing file first"
    return Action(verb, str(spec.path), detail)


def _undo_file(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    current = _fs.read(path)
    if current is None:
        return Action("skip", entry.path, "already gone")
    if sha256(current) != entry.sha256:
        return Action("keep", entry.path, "changed since install; left in place")
    if not dry_run:
        path.unlink()
        if entry.backup and Path(entry.backup).exists():
            os.replace(entry.backup, path)
        else:
            _fs.remove_empty(entry.created_dirs)
    if entry.backup:
        return Action("restore", entry.path, f"from {entry.backup}")
    return Action("remove", entry.path)


# --- harness commands --------------------------------------------------------------------------


def _run(argv: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


def _apply_command(spec: CommandSpec, manifest: Manifest, dry_run: bool) -> Action:
    shown = " ".join(spec.argv)
    if manifest.find(spec.harness, shown, spec.label) is not None:
        return Action("unchanged", shown, spec.label)
    if dry_run:
        return Action("run", shown, spec.label)
    done = _run(spec.argv, spec.env)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        return Action("skip", shown, f"{spec.label} failed: {message[-1] if message else ''}")
    manifest.put(Entry(spec.harness, "command", shown, key=spec.label, undo=list(spec.undo)))
    return Action("run", shown, spec.label)


def _undo_command(entry: Entry, dry_run: bool) -> Action:
    shown = " ".join(entry.undo)
    if not dry_run and entry.undo:
        _run(entry.undo, {})
    return Action("run", shown, f"undo {entry.key}")


# --- entry points ------------------------------------------------------------------------------


def apply(spec: Spec, manifest: Manifest, dry_run: bool) -> Action:
    if isinstance(spec, FileSpec):
        return _apply_file(spec, manifest, dry_run)
    if isinstance(spec, JsonKeySpec):
        return apply_json(spec, manifest, dry_run)
    if isinstance(spec, BlockSpec):
        return apply_block(spec, manifest, dry_run)
    return _apply_command(spec, manifest, dry_run)


def undo(entry: Entry, manifest: Manifest, dry_run: bool) -> Action:
    undoers = {
        "file": _undo_file,
        "json-key": undo_json,
        "text-block": undo_block,
        "command": _undo_command,
    }
    action = undoers[entry.kind](entry, dry_run)
    if not dry_run:
        manifest.drop(entry)
    return action


__all__ = [
    "Action",
    "BlockSpec",
    "CommandSpec",
    "FileSpec",
    "JsonKeySpec",
    "Spec",
    "apply",
    "block_text",
    "undo",
]
