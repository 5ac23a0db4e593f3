"""The run directory: where a training run keeps its artifacts and its resume state.

Every write is atomic (temp file + rename), so a run killed at any moment leaves either the old or
the new version of each file, never a torn one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError

WRITE_HINT = (
    "check that the directory is writable and the disk has space, or choose another --out-root"
)


PRIVATE_DIR = 0o700  # a run's artifacts hold the user's tasks and the models' replies
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
}


def atomic_write_bytes(
    path: Path, data: bytes, mode: int | None = None, *, private_dirs: bool = False
) -> None:
    """Write ``data`` to ``path`` through a synced temp file and a rename: readers see the old
    bytes or the new ones, never a torn file. ``mode`` sets the new file's permission bits (a
    new file is otherwise 0600); ``private_dirs`` creates missing parent directories 0700.
    A failed write raises :class:`StorageError` (an ``OSError``) naming the path."""
    try:
        _make_parents(path.parent, PRIVATE_DIR if private_dirs else None)
        _atomic_write(path, data, mode)
    except StorageError:
        raise
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}", hint=WRITE_HINT) from exc


def link_target(path: Path) -> Path:
    """Where writing ``path`` should land: a symlink's target (a file kept in a dotfiles repo),
    so an atomic replace keeps the link instead of turning it into a regular file."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _make_parents(folder: Path, mode: int | None) -> None:
    if mode is None or folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        return
    _make_parents(folder.parent, mode)
    try:
        folder.mkdir(mode=mode)
    except FileExistsError:  # another writer made it meanwhile
        return
    folder.chmod(mode)  # mkdir's mode is masked by the umask; make it exact


def _atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """A run artifact: the file 0600, any folder it creates 0700."""
    atomic_write_bytes(path, text.encode("utf-8"), private_dirs=True)


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def read_json(
    path: Path, default: Any = None, *, hint: str = "", expect: type | None = None
) -> Any:
    """The JSON value in ``path`` (``default`` when it does not exist). A file that is not UTF-8
    JSON, not a file at all, or (with ``expect``) holds a value of another type is damaged: it
    raises :class:`StorageError` with ``hint`` (or "move it aside") as its fix, as does an
    unreadable one (with "check the file's permissions")."""
    damaged = hint or f"move {path} aside and run again"
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except IsADirectoryError as exc:
        raise StorageError(f"{path} is damaged: it is a directory", hint=damaged) from exc
    except OSError as exc:
        raise StorageError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint=hint or "check the file's permissions",
        ) from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise StorageError(f"{path} is damaged and cannot be read ({exc})", hint=damaged) from exc
    if expect is not None and not isinstance(value, expect):
        raise StorageError(
            f"{path} is damaged: it holds a JSON {_json_type(type(value))} "
            f"where a JSON {_json_type(expect)} belongs",
            hint=damaged,
        )
    return value


def _json_type(kind: type) -> str:
    return "null" if kind is type(None) else _JSON_TYPES.get(kind, kind.__name__)


class RunDir:
    """Named paths of the run layout (see README): config, history, state, skills, steps, epochs."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def history(self) -> Path:
        return self.root / "history.json"

    @property
    def state(self) -> Path:
        return self.root / "runtime_state.json"

    @property
    def best_skill(self) -> Path:
        return self.root / "best_skill.md"

    @property
    def eval_cache(self) -> Path:
        return self.root / "eval_cache.json"

    def skill_version(self, version: int) -> Path:
        return self.root / "skills" / f"skill_v{version:04d}.md"

    def step(self, step: int) -> Path:
        return self.root / "steps" / f"step_{step:04d}"

    def slow_update(self, epoch: int) -> Path:
        return self.root / "slow_update" / f"epoch_{epoch:02d}"

    def meta(self, epoch: int) -> Path:
        return self.root / "meta" / f"epoch_{epoch:02d}"
