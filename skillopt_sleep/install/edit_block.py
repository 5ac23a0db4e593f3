"""A marked block appended to a text config the user owns (Codex's ``config.toml``): the rest of
the file, comments included, is never rewritten; a table the user defined themselves is left
alone; undo removes the block (and the separator we added) only while it is what we wrote."""

from __future__ import annotations

import re
import sys
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


def parse_error(text: str) -> str | None:
    """Why ``text`` is not TOML, or None when it is."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return str(exc)
    return None


def _parsed(path: Path, text: str, *, ours: BlockSpec | None = None) -> dict[str, Any]:
    """``text`` as TOML; an :class:`InstallError` when it is not (before anything is written).
    ``ours``: the spec whose block ``text`` now holds (the error then carries its entry)."""
    try:
        parsed: dict[str, Any] = tomllib.loads(text)
        return parsed
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


def apply_block(spec: BlockSpec, manifest: Manifest, dry_run: bool) -> Action:
    read = _fs.read_text(spec.path)
    text = read or ""
    original = _parsed(spec.path, text)
    block = block_text(spec.body)
    entry = manifest.find(spec.harness, str(spec.path), "block")
    new = Entry(
        spec.harness, "text-block", str(spec.path), sha256(block), key="block", engine=spec.engine
    )
    where = find_block(text)
    if where is not None and text[where[0] : where[1]] == block:
        if not dry_run:
            manifest.confirm(new)
        return Action("unchanged", str(spec.path), "managed block")
    if where is None and spec.table and dig(original, spec.table) is not None:
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
            _fs.remove_empty(entry.created_dirs)
        else:
            _fs.write(path, rest.encode("utf-8"))
    return Action("remove", entry.path, "managed block")
