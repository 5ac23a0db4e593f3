"""The four kinds of change the installer makes, each planned, applied and undone the same way.

- :class:`FileSpec`: a whole file we own (a skill, a command, a launcher).
- :class:`JsonKeySpec`: one key inside a JSON config the user owns (``mcpServers.skillopt_sleep``).
- :class:`BlockSpec`: a marked block appended to a text config the user owns (Codex's TOML), so
  the rest of the file, comments included, is never rewritten.
- :class:`CommandSpec`: a harness command (``claude plugin install``) with the command undoing it.

Rules shared by all: what is already as desired is a no-op; what we wrote earlier (hash in the
manifest) is updated in place; anything else that is in the way is backed up first and reported,
never silently overwritten. Undo removes only what still has the hash we recorded, restores a
backup, and removes the directories and files it created when they are left empty.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from skillopt_core.rundir import atomic_write_bytes
from skillopt_sleep.install.manifest import Entry, Manifest, sha256

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

Verb = Literal[
    "create", "update", "unchanged", "replace", "skip", "remove", "keep", "restore", "run"
]
BEGIN = "# >>> skillopt-sleep (managed block; `skillopt-sleep uninstall` removes it)"
END = "# <<< skillopt-sleep"


@dataclass(frozen=True)
class Action:
    """One line of what install / uninstall did (or, with --dry-run, would do)."""

    verb: Verb
    path: str
    detail: str = ""


@dataclass(frozen=True)
class FileSpec:
    harness: str
    path: Path
    content: str
    executable: bool = False


@dataclass(frozen=True)
class JsonKeySpec:
    harness: str
    path: Path
    keys: tuple[str, ...]  # e.g. ("mcpServers", "skillopt_sleep")
    value: Any


@dataclass(frozen=True)
class BlockSpec:
    harness: str
    path: Path
    body: str  # the block between the markers
    table: tuple[str, ...] = ()  # a TOML table the block defines; refuse if defined elsewhere


@dataclass(frozen=True)
class CommandSpec:
    harness: str
    label: str
    argv: tuple[str, ...]
    undo: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


Spec = FileSpec | JsonKeySpec | BlockSpec | CommandSpec


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _missing_dirs(path: Path) -> list[str]:
    missing: list[str] = []
    probe = path.parent
    while not probe.exists() and probe != probe.parent:
        missing.append(str(probe))
        probe = probe.parent
    return missing  # deepest first


def _write(path: Path, data: bytes, *, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o755 if executable else 0o644
    atomic_write_bytes(path, data, mode=mode)


def _backup(path: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    target = path.with_name(f"{path.name}.skillopt-sleep-backup")
    if target.exists():
        target = path.with_name(f"{path.name}.skillopt-sleep-backup-{stamp}")
    shutil.copy2(path, target)
    return target


def _remove_empty(dirs: Sequence[str]) -> None:
    for directory in dirs:  # deepest first
        try:
            os.rmdir(directory)
        except OSError:
            return


# --- files -------------------------------------------------------------------------------------


def _apply_file(spec: FileSpec, manifest: Manifest, dry_run: bool) -> Action:
    desired = spec.content.encode("utf-8")
    current = _read(spec.path)
    entry = manifest.find(spec.harness, str(spec.path))
    new = Entry(spec.harness, "file", str(spec.path), sha256(desired))
    if current == desired:
        if entry is None and not dry_run:
            manifest.put(new)
        return Action("unchanged", str(spec.path))
    if current is None:
        verb: Verb = "create"
        new.created, new.created_dirs = True, _missing_dirs(spec.path)
    elif entry is not None and sha256(current) == entry.sha256:
        verb = "update"
        new.created, new.created_dirs, new.backup = entry.created, entry.created_dirs, entry.backup
    else:
        verb = "replace"
    detail = ""
    if not dry_run:
        if verb == "replace":
            new.backup = str(_backup(spec.path))
            if entry is not None:
                new.created, new.created_dirs = entry.created, entry.created_dirs
            detail = f"edited or foreign file backed up to {new.backup}"
        _write(spec.path, desired, executable=spec.executable)
        manifest.put(new)
    elif verb == "replace":
        detail = "would back up the existing file first"
    return Action(verb, str(spec.path), detail)


def _undo_file(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    current = _read(path)
    if current is None:
        return Action("skip", entry.path, "already gone")
    if sha256(current) != entry.sha256:
        return Action("keep", entry.path, "changed since install; left in place")
    if not dry_run:
        path.unlink()
        if entry.backup and Path(entry.backup).exists():
            os.replace(entry.backup, path)
        else:
            _remove_empty(entry.created_dirs)
    if entry.backup:
        return Action("restore", entry.path, f"from {entry.backup}")
    return Action("remove", entry.path)


# --- JSON keys ---------------------------------------------------------------------------------


def _load_json(path: Path) -> dict[str, Any] | None:
    raw = _read(path)
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _dig(data: dict[str, Any], keys: Sequence[str]) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _dump_json(path: Path, data: dict[str, Any]) -> None:
    _write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _apply_json(spec: JsonKeySpec, manifest: Manifest, dry_run: bool) -> Action:
    key = ".".join(spec.keys)
    data = _load_json(spec.path)
    if data is None:
        return Action("skip", str(spec.path), "not a JSON object; fix it, then install again")
    current = _dig(data, spec.keys)
    entry = manifest.find(spec.harness, str(spec.path), key)
    new = Entry(spec.harness, "json-key", str(spec.path), sha256(_canon(spec.value)), key=key)
    if current is not None and _canon(current) == _canon(spec.value):
        if entry is None and not dry_run:
            manifest.put(new)
        return Action("unchanged", str(spec.path), key)
    existed = spec.path.exists()
    if current is None:
        verb: Verb = "create"
    elif entry is not None and sha256(_canon(current)) == entry.sha256:
        verb = "update"
    else:
        verb = "replace"
    new.created = entry.created if entry is not None else not existed
    new.created_dirs = entry.created_dirs if entry is not None else _missing_dirs(spec.path)
    detail = key
    if not dry_run:
        if verb == "replace":
            new.backup = str(_backup(spec.path))
            detail = f"{key} (was different; file backed up to {new.backup})"
        node = data
        for part in spec.keys[:-1]:
            node = node.setdefault(part, {})
        node[spec.keys[-1]] = spec.value
        _dump_json(spec.path, data)
        manifest.put(new)
    return Action(verb, str(spec.path), detail)


def _undo_json(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    data = _load_json(path)
    keys = entry.key.split(".")
    current = None if data is None else _dig(data, keys)
    if data is None or current is None:
        return Action("skip", entry.path, f"{entry.key} already gone")
    if sha256(_canon(current)) != entry.sha256:
        return Action("keep", entry.path, f"{entry.key} changed since install; left in place")
    if not dry_run:
        parents = [data]
        for part in keys[:-1]:
            parents.append(parents[-1][part])
        del parents[-1][keys[-1]]
        for depth in range(len(keys) - 1, 0, -1):  # drop containers we emptied
            if parents[depth] == {}:
                del parents[depth - 1][keys[depth - 1]]
        if entry.created and data == {}:
            path.unlink()
            _remove_empty(entry.created_dirs)
        else:
            _dump_json(path, data)
    return Action("remove", entry.path, entry.key)


# --- marked text blocks ------------------------------------------------------------------------


def block_text(body: str) -> str:
    """The managed block as written, markers included (``doctor`` hashes it too)."""
    return f"{BEGIN}\n{body.rstrip()}\n{END}\n"


def _find_block(text: str) -> tuple[int, int] | None:
    start = text.find(BEGIN)
    if start < 0:
        return None
    end = text.find(END, start)
    if end < 0:
        return None
    end += len(END)
    if text[end : end + 1] == "\n":
        end += 1
    return start, end


def _defines(text: str, table: Sequence[str]) -> bool:
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return _dig(data, table) is not None


def _apply_block(spec: BlockSpec, manifest: Manifest, dry_run: bool) -> Action:
    raw = _read(spec.path)
    text = raw.decode("utf-8") if raw is not None else ""
    block = block_text(spec.body)
    entry = manifest.find(spec.harness, str(spec.path), "block")
    new = Entry(spec.harness, "text-block", str(spec.path), sha256(block), key="block")
    where = _find_block(text)
    if where is not None and text[where[0] : where[1]] == block:
        if entry is None and not dry_run:
            manifest.put(new)
        return Action("unchanged", str(spec.path), "managed block")
    if where is None and spec.table and _defines(text, spec.table):
        return Action(
            "skip",
            str(spec.path),
            f"[{'.'.join(spec.table)}] is already defined there by you; left as it is",
        )
    new.created = entry.created if entry is not None else raw is None
    new.created_dirs = entry.created_dirs if entry is not None else _missing_dirs(spec.path)
    if where is None:
        verb: Verb = "create"
        new.prefix = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        updated = text + new.prefix + block
    else:
        new.prefix = entry.prefix if entry is not None else ""
        old = text[where[0] : where[1]]
        verb = "update" if entry is not None and sha256(old) == entry.sha256 else "replace"
        updated = text[: where[0]] + block + text[where[1] :]
    detail = "managed block"
    if not dry_run:
        if verb == "replace":
            new.backup = str(_backup(spec.path))
            detail = f"managed block was edited; file backed up to {new.backup}"
        _write(spec.path, updated.encode("utf-8"))
        manifest.put(new)
    return Action(verb, str(spec.path), detail)


def _undo_block(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    raw = _read(path)
    text = raw.decode("utf-8") if raw is not None else ""
    where = _find_block(text)
    if where is None:
        return Action("skip", entry.path, "managed block already gone")
    if sha256(text[where[0] : where[1]]) != entry.sha256:
        return Action("keep", entry.path, "managed block edited since install; left in place")
    head = text[: where[0]]
    if entry.prefix and head.endswith(entry.prefix):
        head = head[: len(head) - len(entry.prefix)]
    rest = head + text[where[1] :]
    if not dry_run:
        if entry.created and not rest.strip():
            path.unlink()
            _remove_empty(entry.created_dirs)
        else:
            _write(path, rest.encode("utf-8"))
    return Action("remove", entry.path, "managed block")


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
        return _apply_json(spec, manifest, dry_run)
    if isinstance(spec, BlockSpec):
        return _apply_block(spec, manifest, dry_run)
    return _apply_command(spec, manifest, dry_run)


def undo(entry: Entry, manifest: Manifest, dry_run: bool) -> Action:
    undoers = {
        "file": _undo_file,
        "json-key": _undo_json,
        "text-block": _undo_block,
        "command": _undo_command,
    }
    action = undoers[entry.kind](entry, dry_run)
    if not dry_run:
        manifest.drop(entry)
    return action
