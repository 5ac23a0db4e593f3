"""Apply and undo the installer's changes (see :mod:`.specs`): files and harness commands here,
JSON keys in :mod:`.edit_json`, marked text blocks in :mod:`.edit_block`.

Rules shared by all: what is already as desired is a no-op; what we wrote earlier (hash in the
manifest) is updated in place; anything else that is in the way is backed up first and reported,
never silently overwritten, except a server the user registered under our name in a config,
which is theirs and left alone. Undo removes only what still has the hash we recorded, restores
a backup, and removes the directories and files it created when they are left empty.

A new file, key or block is recorded in the manifest before it is written, so a kill in between
leaves an entry uninstall acts on; an update keeps its old entry until the write is done (what is
there is ours either way), and a reinstall records the new hash. A harness command that hangs is
stopped with everything it started, after ``COMMAND_TIMEOUT_S``; one that fails is an action with
a ``fix``, and a failed undo keeps its entry, so the next uninstall tries again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from skillopt_sleep.install import _fs
from skillopt_sleep.install._proc import Ran, run_bounded
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

COMMAND_TIMEOUT_S = 120.0
"""How long a harness command (``claude plugin install``) may take before it is stopped."""

# --- files -------------------------------------------------------------------------------------


def _apply_file(spec: FileSpec, manifest: Manifest, dry_run: bool) -> Action:
    desired = spec.content.encode("utf-8")
    current = _fs.read(spec.path)
    entry = manifest.find(spec.harness, str(spec.path))
    new = Entry(spec.harness, "file", str(spec.path), sha256(desired), engine=spec.engine)
    if current == desired:
        if not dry_run:
            manifest.confirm(new)
        return Action("unchanged", str(spec.path))
    if current is None:
        verb: Verb = "create"
        recorded = entry.created_dirs if entry is not None else []
        new.created, new.created_dirs = True, _fs.missing_dirs(spec.path, recorded)
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
        if verb != "update":
            manifest.record(new)
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


def _run(argv: Sequence[str], env: dict[str, str]) -> str:
    """ "" when the harness command succeeded, else what went wrong (its last line of output,
    or that it hung and was stopped with all it started)."""
    return run_bounded(argv, COMMAND_TIMEOUT_S, env).last_words()


def _located(argv: Sequence[str]) -> list[str]:
    """``argv`` with its program found again on PATH when the recorded one is gone (Claude Code
    reinstalled elsewhere, by npm or by its own installer)."""
    program = argv[0] if argv else ""
    if not program or Path(program).exists():
        return list(argv)
    return [shutil.which(Path(program).name) or program, *argv[1:]]


def _already_undone(argv: Sequence[str], ran: Ran) -> bool:
    """Whether a failed undo failed only because there is nothing left to undo: the harness
    says that what it names (``argv``'s last word: the plugin, the marketplace) is not found,
    as when the user removed it themselves; else the undo would fail on every uninstall."""
    said = f"{ran.stdout}\n{ran.stderr}".lower()
    target = argv[-1].lower() if len(argv) > 1 else ""
    return (
        bool(target)
        and ran.failure.startswith("it exited")
        and any(target in line and "not found" in line for line in said.splitlines())
    )


def _by_hand(shown: str, then: str) -> str:
    return f"run `{shown}` by hand to see what it needs, then `{then}` again"


def _apply_command(spec: CommandSpec, manifest: Manifest, dry_run: bool) -> Action:
    """Run the harness command, recorded or not: the harness commands are idempotent, and what
    one did may have been undone outside us since (the user removed the plugin in Claude), which
    a reinstall must put back. One entry per label: a rerun from a moved package (another plugin
    folder) replaces the old one, whose undo is the same."""
    shown = " ".join(spec.argv)
    if dry_run and manifest.find(spec.harness, shown, spec.label) is not None:
        return Action("unchanged", shown, f"{spec.label}; recorded, run again by install")
    if dry_run:
        return Action("run", shown, spec.label)
    failed = _run(spec.argv, spec.env)
    if failed:
        fix = _by_hand(shown, f"skillopt-sleep install {spec.harness}")
        return Action("skip", shown, f"{spec.label} failed: {failed}", fix=fix)
    for old in manifest.of(spec.harness):
        if old.kind == "command" and old.key == spec.label:
            manifest.drop(old)
    manifest.put(Entry(spec.harness, "command", shown, key=spec.label, undo=list(spec.undo)))
    return Action("run", shown, spec.label)


def _undo_command(entry: Entry, dry_run: bool) -> Action:
    argv = _located(entry.undo)
    shown = " ".join(argv)
    if dry_run or not argv:
        return Action("run", shown, f"undo: {entry.key}")
    ran = run_bounded(argv, COMMAND_TIMEOUT_S, {})
    failed = ran.last_words()
    if failed and _already_undone(argv, ran):
        return Action("skip", shown, f"'{entry.key}' already undone ({failed})")
    if failed:
        fix = _by_hand(shown, f"skillopt-sleep uninstall {entry.harness}")
        return Action(
            "skip", shown, f"undo of '{entry.key}' failed: {failed}; still recorded", fix=fix
        )
    return Action("run", shown, f"undo: {entry.key}")


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
    if dry_run:
        return action
    if entry.kind != "command":  # a killed write's temp file, the folders it made for nothing
        _fs.clear_temps(Path(entry.path))
        _fs.remove_empty(entry.created_dirs)
    if not action.fix:
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
