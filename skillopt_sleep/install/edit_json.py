"""One key in a JSON config the user owns (Copilot's ``mcp-config.json``, VS Code's ``mcp.json``):
merged key-wise, the rest of the file kept; undo removes the key only while it is what we wrote,
and the file too when we created it and nothing else is left.

Whose key it is: one the manifest does not record is the user's own server and is left alone
(reported as a skip, as Codex's marked block does for a table the user defined). One we wrote
and the user edited since is backed up and replaced; undo puts back the value the backup holds,
so uninstall never leaves less than was there before install.

JSONC: a file its harness reads as JSONC (``JsonKeySpec.jsonc``: VS Code's ``mcp.json``) is read
with ``//`` and ``/* */`` comments and trailing commas (:mod:`.jsonc`). A file holding a comment
is never rewritten, since the JSON we write would drop it: install refuses with the entry to add
by hand (:attr:`InstallError.preview`), and uninstall leaves our key in place with the fix.
Trailing commas alone are normalised away when the file is rewritten. Install reads a strict-JSON
file (Copilot CLI's) strictly, so a file its harness would reject is reported, not "fixed";
undo and ``doctor`` read either kind leniently, as removing our key can only leave valid JSON.
A leading byte order mark, which both harnesses read past, is ignored and kept on rewrite.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillopt_sleep.install import _fs, jsonc
from skillopt_sleep.install.manifest import Entry, Manifest, sha256
from skillopt_sleep.install.specs import Action, InstallError, JsonKeySpec, Verb

KEEP_COMMENTS = "we keep your comments: rewriting the file would drop them"


def load_config(path: Path, *, lenient: bool) -> tuple[dict[str, Any], bool]:
    """The file's object ({} when absent, empty or only comments) and whether it holds a comment;
    ``lenient`` reads JSONC. Anything else is an :class:`InstallError`."""
    text = _fs.read_text(path)
    if text is None:
        return {}, False
    text = text.removeprefix(_fs.BOM)  # Copilot CLI and VS Code read past it; kept on rewrite
    stripped = jsonc.strip_jsonc(text) if lenient else jsonc.Stripped(text, False)
    if not stripped.text.strip():
        return {}, stripped.comments
    kind = "JSON (comments and trailing commas allowed)" if lenient else "JSON"
    hint = f"fix {path} by hand (or move it aside), then install again"
    try:
        data = json.loads(stripped.text)
    except ValueError as exc:
        raise InstallError(path, f"{path} is not valid {kind} ({exc})", hint=hint) from exc
    if not isinstance(data, dict):
        raise InstallError(
            path, f"{path} holds a JSON {type(data).__name__}, not an object", hint=hint
        )
    return data, stripped.comments


def _container(data: dict[str, Any], spec: JsonKeySpec, *, create: bool) -> dict[str, Any]:
    """The object our key goes in ({} when absent; made in ``data`` when ``create``); a
    non-object in the way is an error, never a TypeError."""
    node = data
    for depth, part in enumerate(spec.keys[:-1]):
        child = node.setdefault(part, {}) if create else node.get(part, {})
        if not isinstance(child, dict):
            where = ".".join(spec.keys[: depth + 1])
            raise InstallError(
                spec.path,
                f"{where} in {spec.path} is a JSON {type(child).__name__}, not an object",
                hint=f'make {where} an object ({{"name": {{...}}}}) in {spec.path}, then install again',
            )
        node = child
    return node


def dig(data: dict[str, Any], keys: Sequence[str]) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _dump_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    json.loads(text)  # what we write must read back; a ValueError here is our bug, not the user's
    bom = _fs.BOM if (_fs.read_text(path) or "").startswith(_fs.BOM) else ""
    _fs.write(path, (bom + text).encode("utf-8"))


def apply_json(spec: JsonKeySpec, manifest: Manifest, dry_run: bool) -> Action:
    key = ".".join(spec.keys)
    data, comments = load_config(spec.path, lenient=spec.jsonc)
    current = _container(data, spec, create=False).get(spec.keys[-1])
    entry = manifest.find(spec.harness, str(spec.path), key)
    new = Entry(
        spec.harness,
        "json-key",
        str(spec.path),
        sha256(_canon(spec.value)),
        key=key,
        engine=spec.engine,
    )
    if current is not None and _canon(current) == _canon(spec.value):
        if not dry_run:
            manifest.confirm(new)
        return Action("unchanged", str(spec.path), key)
    if current is not None and entry is None:
        return Action(
            "skip", str(spec.path), f"{key} is already defined there by you; left as it is"
        )
    if comments:
        raise InstallError(
            spec.path,
            f"{spec.path} has comments, which rewriting it would drop; left as it is",
            hint=f"add the {spec.keys[-1]!r} entry shown below to {'.'.join(spec.keys[:-1])} "
            f"in {spec.path} by hand ({KEEP_COMMENTS}), or remove the comments and install again",
            preview=_preview(spec),
        )
    existed = spec.path.exists()
    if current is None:
        verb: Verb = "create"
    elif entry is not None and sha256(_canon(current)) == entry.sha256:
        verb = "update"
        new.backup = entry.backup  # still the value to put back on uninstall
    else:
        verb = "replace"
    new.created = entry.created if entry is not None else not existed
    new.created_dirs = entry.created_dirs if entry is not None else _fs.missing_dirs(spec.path)
    detail = key
    if not dry_run:
        if verb == "replace":
            new.backup = str(_fs.backup(spec.path))
            detail = f"{key} (was edited; file backed up to {new.backup}, put back on uninstall)"
        if verb != "update":
            manifest.record(new)  # before the write (see .changes)
        _container(data, spec, create=True)[spec.keys[-1]] = spec.value
        _dump_json(spec.path, data)
        manifest.put(new)
    return Action(verb, str(spec.path), detail, preview=_preview(spec) if dry_run else "")


def _preview(spec: JsonKeySpec) -> str:
    """Our key as it would sit in the file (the file's other keys are kept as they are)."""
    value: Any = spec.value
    for part in reversed(spec.keys):
        value = {part: value}
    return json.dumps(value, indent=2, ensure_ascii=False)


def _previous(entry: Entry, keys: Sequence[str]) -> Any:
    """The value our key replaced, from the backup taken then; None when there is none (we
    created the key, or the backup is gone or unreadable)."""
    if not entry.backup:
        return None
    try:
        data, _ = load_config(Path(entry.backup), lenient=True)
    except InstallError:
        return None
    return dig(data, keys)


def undo_json(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    try:
        data, comments = load_config(path, lenient=True)
    except InstallError as exc:
        return Action("keep", entry.path, f"{exc.message}; {entry.key} left as it is", exc.hint)
    keys = entry.key.split(".")
    current = dig(data, keys)
    if current is None:
        return Action("skip", entry.path, f"{entry.key} already gone")
    if sha256(_canon(current)) != entry.sha256:
        return Action("keep", entry.path, f"{entry.key} changed since install; left in place")
    previous = _previous(entry, keys)
    if comments:
        todo = (
            f"replace {entry.key} in {path} with the one in {entry.backup}"
            if previous is not None
            else f"remove {entry.key} from {path}"
        )
        return Action(
            "keep",
            entry.path,
            f"{entry.key} left in place: {path} has comments ({KEEP_COMMENTS})",
            fix=f"{todo} by hand, then uninstall again",
        )
    parents = [data]
    for part in keys[:-1]:
        parents.append(parents[-1][part])
    if previous is not None:
        if not dry_run:
            parents[-1][keys[-1]] = previous
            _dump_json(path, data)
        return Action("restore", entry.path, f"{entry.key} from {entry.backup}")
    if not dry_run:
        del parents[-1][keys[-1]]
        for depth in range(len(keys) - 1, 0, -1):  # drop containers we emptied
            if parents[depth] == {}:
                del parents[depth - 1][keys[depth - 1]]
        if entry.created and data == {}:
            path.unlink()
            _fs.remove_empty(entry.created_dirs)
        else:
            _dump_json(path, data)
    return Action("remove", entry.path, entry.key)
