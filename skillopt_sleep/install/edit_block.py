"""A marked block appended to a text config the user owns (Codex's ``config.toml``): the rest of
the file, comments included, is never rewritten; a table the user defined themselves is left
alone; undo removes the block (and the separator we added) only while it is what we wrote.

The harness may rewrite the file itself: ``codex mcp add`` re-serialises every ``mcp_servers``
table, dropping our opening marker. The table the block defines is then still ours while it
parses to what we wrote (``Entry.table_sha256``): install updates it and uninstall removes it
line-wise (:func:`without_table`), the rest of the file kept as it is.

A UTF-8 byte order mark, which Codex accepts, is kept and ignored when parsing.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import tomli_w

from skillopt_sleep.install import _fs
from skillopt_sleep.install.edit_json import dig
from skillopt_sleep.install.manifest import Entry, Manifest, sha256
from skillopt_sleep.install.specs import Action, BlockSpec, InstallError, Verb

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BEGIN = "# >>> skillopt-sleep (managed block; `skillopt-sleep uninstall` removes it)"
END = "# <<< skillopt-sleep"
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def block_text(body: str) -> str:
    """The managed block as written, markers included (``doctor`` hashes it too)."""
    return f"{BEGIN}\n{body.rstrip()}\n{END}\n"


def find_block(text: str) -> tuple[int, int] | None:
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


def _toml(text: str) -> dict[str, Any]:
    """``text`` as TOML, a leading byte order mark ignored (Codex reads such a file)."""
    parsed: dict[str, Any] = tomllib.loads(text.removeprefix(_fs.BOM))
    return parsed


def parse_error(text: str) -> str | None:
    """Why ``text`` is not TOML, or None when it is."""
    try:
        _toml(text)
    except tomllib.TOMLDecodeError as exc:
        return str(exc)
    return None


def _parsed(path: Path, text: str, *, ours: BlockSpec | None = None) -> dict[str, Any]:
    """``text`` as TOML; an :class:`InstallError` when it is not (before anything is written).
    ``ours``: the spec whose block ``text`` now holds (the error then carries its entry)."""
    try:
        return _toml(text)
    except tomllib.TOMLDecodeError as exc:
        if ours is not None:
            raise InstallError(
                path,
                f"adding the managed block would make {path} invalid TOML ({exc}); "
                "nothing was written",
                hint=_by_hand(ours),
                preview=entry_text(ours),
            ) from exc
        raise InstallError(
            path,
            f"{path} is not valid TOML ({exc}); nothing was written",
            hint=f"fix {path} (or move it aside), then install again",
        ) from exc


def _by_hand(spec: BlockSpec) -> str:
    shown = f"`skillopt-sleep install {spec.harness} --dry-run` prints it"
    if not spec.table:
        return f"add the block by hand ({shown})"
    head, name = spec.table[0], spec.table[-1]
    return (
        f"convert an inline `{head} = {{...}}` table to [{head}.<name>] tables and install "
        f"again, or add the `{name}` entry to that table by hand ({shown})"
    )


def entry_text(spec: BlockSpec) -> str:
    """What to add by hand where the block cannot go: the table as one inline-table line
    (``skillopt_sleep = { command = "...", ... }``) to put inside the user's inline table; the
    whole block when the spec names no table."""
    value = dig(tomllib.loads(spec.body), spec.table) if spec.table else None
    if not isinstance(value, dict):
        return block_text(spec.body)
    return f"{_key(spec.table[-1])} = {_inline(value)}"


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else _inline(name)


def _inline(value: Any) -> str:
    """One TOML value on one line (inline tables may not span lines)."""
    if isinstance(value, dict):
        items = ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items())
        return f"{{ {items} }}" if items else "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).strip()[len("v = ") :]


# --- the table without our markers ------------------------------------------------------------

_HEADER = re.compile(r"\s*\[(\[?)(?P<key>[^\[\]]+)\]\1\s*(?:#.*)?")
_KEY_PART = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)""")


def _header_keys(line: str) -> tuple[str, ...] | None:
    """The dotted key of a ``[table]`` or ``[[array]]`` header line, None for any other line."""
    match = _HEADER.fullmatch(line)
    if match is None:
        return None
    key, parts, at = match["key"], [], 0
    while at < len(key):
        part = _KEY_PART.match(key, at)
        if part is None or part.end() == at:
            return None
        word = part[1]
        try:
            parts.append(json.loads(word) if word[0] == '"' else word.strip("'"))
        except ValueError:  # a TOML escape JSON lacks: not a header we could be looking for
            return None
        at = part.end()
    return tuple(parts)


def table_hash(value: Any) -> str:
    """The hash of a parsed TOML table, whatever its formatting (``Entry.table_sha256``)."""
    return sha256(json.dumps(value, sort_keys=True, default=str))


def without_table(text: str, table: Sequence[str]) -> str | None:
    """``text`` without ``table``, its sub-tables and any stray marker of ours, every other line
    kept (a comment inside the table too); None when that does not parse to the same file minus
    the table (a layout this line-wise cut does not understand: leave it to the user)."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    inside = removed_last = False
    for line in lines:
        keys = _header_keys(line.rstrip("\r\n"))
        if keys is not None:
            inside = keys[: len(table)] == tuple(table)
        bare = line.strip()
        ours = bare in (BEGIN, END) or (inside and not bare.startswith("#"))
        if not ours:
            kept.append(line)
        removed_last = ours or (removed_last and not bare)
    rest = "".join(kept)
    if removed_last:  # the table was last: no blank lines left dangling at the end
        rest = rest.rstrip() + "\n" if rest.strip() else ""
    try:
        after = _toml(rest)
        expected = [_toml(text), _toml(text)]
    except tomllib.TOMLDecodeError:
        return None
    _drop(expected[0], table, prune=True)  # parents defined only by our table's header
    _drop(expected[1], table, prune=False)  # a parent table the file names itself, kept empty
    return rest if after in expected else None


def _drop(data: dict[str, Any], table: Sequence[str], *, prune: bool) -> None:
    """Remove ``table`` from parsed TOML, and with ``prune`` the parents it leaves empty."""
    parents = [data]
    for part in table[:-1]:
        child = parents[-1].get(part)
        if not isinstance(child, dict):
            return
        parents.append(child)
    parents[-1].pop(table[-1], None)
    for depth in range(len(table) - 1, 0, -1):
        if prune and parents[depth] == {}:
            del parents[depth - 1][table[depth - 1]]


def _ours_unmarked(entry: Entry | None, found: Any, spec_value: Any = None) -> bool:
    """Whether a table found without our markers is what we wrote (or would write now)."""
    if entry is None or found is None:
        return False
    return table_hash(found) in {entry.table_sha256, table_hash(spec_value)} - {table_hash(None)}


def _spec_table(spec: BlockSpec) -> Any:
    return dig(_toml(spec.body), spec.table) if spec.table else None


def _unmarked_update(
    spec: BlockSpec, entry: Entry, text: str, current: Any, manifest: Manifest, dry_run: bool
) -> Action:
    """Our table, rewritten by the harness without our markers: unchanged when it still holds
    what we would write, else cut out line-wise and written again as a marked block."""
    desired = _spec_table(spec)
    new = replace(entry, sha256=sha256(block_text(spec.body)), engine=spec.engine)
    new.table_sha256 = table_hash(desired)
    if table_hash(current) == new.table_sha256:
        if not dry_run:
            manifest.confirm(new)
        return Action("unchanged", str(spec.path), "managed table, rewritten without its markers")
    rest = without_table(text, spec.table)
    if rest is None:
        return Action(
            "skip",
            str(spec.path),
            f"[{'.'.join(spec.table)}] was rewritten without our markers in a layout we cannot "
            "edit safely; left as it is",
            fix=f"remove [{'.'.join(spec.table)}] from {spec.path} by hand, then install again",
        )
    separator = "" if not rest.strip() else "\n" if rest.endswith("\n") else "\n\n"
    updated = rest + separator + block_text(spec.body)
    _parsed(spec.path, updated, ours=spec)
    new.prefix = separator if rest.strip() else ""
    if not dry_run:
        _fs.write(spec.path, updated.encode("utf-8"))
        manifest.put(new)
    preview = block_text(spec.body) if dry_run else ""
    return Action(
        "update", str(spec.path), "managed table, rewritten without its markers", preview=preview
    )


def apply_block(spec: BlockSpec, manifest: Manifest, dry_run: bool) -> Action:
    read = _fs.read_text(spec.path)
    text = read or ""
    original = _parsed(spec.path, text)
    block = block_text(spec.body)
    entry = manifest.find(spec.harness, str(spec.path), "block")
    new = Entry(
        spec.harness, "text-block", str(spec.path), sha256(block), key="block", engine=spec.engine
    )
    new.table_sha256 = table_hash(_spec_table(spec)) if spec.table else ""
    where = find_block(text)
    if where is not None and text[where[0] : where[1]] == block:
        if not dry_run:
            manifest.confirm(new)
        return Action("unchanged", str(spec.path), "managed block")
    found = dig(original, spec.table) if spec.table else None
    if where is None and entry is not None and _ours_unmarked(entry, found, _spec_table(spec)):
        return _unmarked_update(spec, entry, text, found, manifest, dry_run)
    if where is None and found is not None:
        return Action(
            "skip",
            str(spec.path),
            f"[{'.'.join(spec.table)}] is already defined there by you; left as it is",
        )
    new.created = entry.created if entry is not None else read is None
    new.created_dirs = entry.created_dirs if entry is not None else _fs.missing_dirs(spec.path)
    if where is None:
        verb: Verb = "create"
        new.prefix = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        updated = text + new.prefix + block
    else:
        new.prefix = entry.prefix if entry is not None else ""
        old = text[where[0] : where[1]]
        verb = "update" if entry is not None and sha256(old) == entry.sha256 else "replace"
        updated = text[: where[0]] + block + text[where[1] :]
    _parsed(spec.path, updated, ours=spec)
    detail = "managed block"
    if not dry_run:
        if verb == "replace":
            new.backup = str(_fs.backup(spec.path))
            detail = f"managed block was edited; file backed up to {new.backup}"
        if verb != "update":
            manifest.record(new)  # before the write (see .changes)
        _fs.write(spec.path, updated.encode("utf-8"))
        manifest.put(new)
    return Action(verb, str(spec.path), detail, preview=block if dry_run else "")


def undo_block(entry: Entry, dry_run: bool) -> Action:
    path = Path(entry.path)
    try:
        text = _fs.read_text(path) or ""
    except InstallError as exc:
        return Action("keep", entry.path, f"{exc.message}; managed block left as it is", exc.hint)
    where = find_block(text)
    if where is None:
        return _undo_unmarked(entry, text, dry_run)
    if sha256(text[where[0] : where[1]]) != entry.sha256:
        return Action("keep", entry.path, "managed block edited since install; left in place")
    head = text[: where[0]]
    if entry.prefix and head.endswith(entry.prefix):
        head = head[: len(head) - len(entry.prefix)]
    rest = head + text[where[1] :]
    if not dry_run:
        _write_rest(entry, rest)
    return Action("remove", entry.path, "managed block")


def _write_rest(entry: Entry, rest: str) -> None:
    path = Path(entry.path)
    if entry.created and not rest.removeprefix(_fs.BOM).strip():
        path.unlink()
        _fs.remove_empty(entry.created_dirs)
    else:
        _fs.write(path, rest.encode("utf-8"))


def _undo_unmarked(entry: Entry, text: str, dry_run: bool) -> Action:
    """No marked block: the table it held may still be there, rewritten by the harness."""
    try:
        table = _find_table(_toml(text), entry.table_sha256) if entry.table_sha256 else None
    except tomllib.TOMLDecodeError as exc:
        return Action(
            "keep",
            entry.path,
            f"{entry.path} is not valid TOML ({exc}); left as it is",
            fix=f"fix {entry.path}, then uninstall again",
        )
    if table is None:
        gone = "managed block already gone"
        if not entry.table_sha256:  # recorded before table hashes: cannot tell
            gone += " (if the table it held is still there, remove it by hand)"
        return Action("skip", entry.path, gone)
    name = ".".join(table)
    rest = without_table(text, table)
    if rest is None:
        return Action(
            "keep",
            entry.path,
            f"[{name}] was rewritten without our markers in a layout we cannot edit safely",
            fix=f"remove [{name}] from {entry.path} by hand, then uninstall again",
        )
    if not dry_run:
        _write_rest(entry, rest)
    return Action("remove", entry.path, f"[{name}], rewritten without its markers")


def unmarked_table(text: str, entry: Entry) -> tuple[str, ...] | None:
    """The table ``entry``'s block held, still there without its markers (``doctor``)."""
    if not entry.table_sha256 or parse_error(text) is not None:
        return None
    return _find_table(_toml(text), entry.table_sha256)


def _find_table(data: dict[str, Any], digest: str) -> tuple[str, ...] | None:
    """The key path of the table in ``data`` whose :func:`table_hash` is ``digest``."""
    for key, value in data.items():
        if isinstance(value, dict):
            if table_hash(value) == digest:
                return (key,)
            inner = _find_table(value, digest)
            if inner is not None:
                return (key, *inner)
    return None
