"""The install manifest: every file, JSON key and text block the installer wrote, with its hash.

Lives at ``<state>/install/manifest.json``. Re-installing compares hashes (unchanged -> no-op);
uninstalling removes exactly what is recorded, and only while it still has the recorded hash (a
file the user edited since is kept and reported). One entry per ``(harness, path, key)``.

An install or uninstall holds the lock on the manifest's folder from its first read to its last
save (:meth:`Manifest.locked`): two runs each saving their own copy would lose entries. The run
that leaves no manifest behind (the last uninstall) also removes the lock file, while it still
holds it, and then the folders left empty (``install/``, and the platform's state folder, never
one ``SKILLOPT_SLEEP_HOME`` names); :func:`_hold` is why that cannot let two runs in at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

from skillopt_core.errors import StorageError
from skillopt_core.lock import DirectoryLocked, exclusive
from skillopt_sleep.install.specs import InstallError
from skillopt_sleep.paths import private_dir, state_dir

EntryKind = Literal["file", "json-key", "text-block", "command"]


def sha256(data: bytes | str) -> str:
    payload = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(payload).hexdigest()


def install_dir() -> Path:
    """Where the manifest and the engine pointer live (follows ``SKILLOPT_SLEEP_HOME``)."""
    return state_dir() / "install"


@dataclass
class Entry:
    """One thing written for a harness. ``sha256`` is of what we wrote (the file, the JSON value,
    the block); ``backup`` is where a file that was there before now sits; ``created`` is True when
    the containing file did not exist before us; ``undo`` is the argv that reverses a command;
    ``engine`` is the executable the thing runs (a wrapper, or the engine), which ``doctor``
    follows to report a moved or deleted engine."""

    harness: str
    kind: EntryKind
    path: str
    sha256: str = ""
    key: str = ""
    backup: str = ""
    created: bool = False
    created_dirs: list[str] = field(default_factory=list)
    undo: list[str] = field(default_factory=list)
    prefix: str = ""  # text-block: the separator added before the block, removed with it
    engine: str = ""
    # text-block: hash of the table the block defines, as parsed, which still names it once the
    # harness rewrote the file without our markers (`codex mcp add` does)
    table_sha256: str = ""

    @property
    def ident(self) -> tuple[str, str, str]:
        return (self.harness, self.path, self.key)


class Manifest:
    """Load, query, update and save the manifest (atomic writes, private file)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or install_dir() / "manifest.json"
        self.entries = _load(self.path)
        # the platform's state folder is ours to remove once empty; SKILLOPT_SLEEP_HOME's is not
        self.owns_state_dir = path is None and not os.environ.get("SKILLOPT_SLEEP_HOME")

    def find(self, harness: str, path: str, key: str = "") -> Entry | None:
        return next((e for e in self.entries if e.ident == (harness, path, key)), None)

    def of(self, harness: str) -> list[Entry]:
        return [e for e in self.entries if e.harness == harness]

    def put(self, entry: Entry) -> None:
        self.entries = [e for e in self.entries if e.ident != entry.ident] + [entry]

    def drop(self, entry: Entry) -> None:
        self.entries = [e for e in self.entries if e.ident != entry.ident]

    def confirm(self, entry: Entry) -> None:
        """What is on disk is what ``entry`` describes: add it when missing; refresh the hashes and
        the engine of an older entry (an update killed before its save, an entry recorded before
        engines or table hashes were) and keep the rest of it."""
        old = self.find(*entry.ident)
        if old is None:
            self.put(entry)
        elif (old.sha256, old.engine, old.table_sha256) != (
            entry.sha256,
            entry.engine,
            entry.table_sha256,
        ):
            self.put(
                replace(
                    old,
                    sha256=entry.sha256,
                    engine=entry.engine,
                    table_sha256=entry.table_sha256,
                )
            )

    def record(self, entry: Entry) -> None:
        """Put and save at once: called before a write, so a kill during it leaves an entry that
        uninstall can act on, never a file nobody knows about."""
        self.put(entry)
        self.save()

    def save(self) -> None:
        from skillopt_sleep.engine.state import make_private_dir, write_json

        make_private_dir(self.path.parent)
        write_json(self.path, {"version": 1, "entries": [asdict(e) for e in self.entries]})

    @contextmanager
    def locked(self, what: str) -> Iterator[None]:
        """Hold the manifest's folder for the block, re-reading the entries under the lock; a
        second run is turned away with :class:`~skillopt_core.lock.DirectoryLocked`. A run that
        leaves no manifest (the last uninstall) removes the lock and the folders it emptied."""
        folder = self.path.parent
        with _hold(folder, what):
            self.entries = _load(self.path)
            yield
            if self.path.exists() or sys.platform == "win32":
                return
            with contextlib.suppress(OSError):  # not empty: someone else's file is there
                if [p.name for p in folder.iterdir()] == [LOCK]:
                    (folder / LOCK).unlink()  # still held: see _hold
        for empty in (folder, folder.parent) if self.owns_state_dir else (folder,):
            with contextlib.suppress(OSError):
                empty.rmdir()


LOCK = ".lock"  # skillopt_core.lock's file in the locked folder
ATTEMPTS = 3


@contextmanager
def _hold(folder: Path, what: str) -> Iterator[None]:
    """:func:`~skillopt_core.lock.exclusive` on ``folder``, safe against the last uninstall
    removing the lock file and the folder.

    That run unlinks ``.lock`` while still holding it, then removes the folder when empty. A run
    that opened the old file just before may lock it once it is released, while a third run
    creates a new ``.lock`` and locks that: two holders. So a lock is only ours while ``.lock``
    is the file we locked, i.e. holds our pid (``exclusive`` writes it once locked; a pid is
    unique among live processes); otherwise, or when the folder vanished under us, we start
    again. Windows keeps its lock file (an open file cannot be removed), so needs no check."""
    from skillopt_sleep.engine.state import storage_error

    for _ in range(ATTEMPTS):
        with ExitStack() as stack:
            try:
                private_dir(folder)
                stack.enter_context(exclusive(folder, what))
            except FileNotFoundError:
                continue  # a folder removed between our mkdirs: try again
            except StorageError as exc:
                if isinstance(exc.__cause__, FileNotFoundError):
                    continue  # removed between exclusive's mkdir and its open
                raise
            except OSError as exc:
                raise storage_error("create the state directory", folder, exc) from None
            if sys.platform == "win32" or _pid_in(folder / LOCK) == str(os.getpid()):
                yield
                return
    raise DirectoryLocked(f"{folder} is being removed by another run; run the command again")


def _pid_in(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").partition("\n")[0].strip()
    except OSError:
        return ""


def _load(path: Path) -> list[Entry]:
    """The recorded entries ([] when there is no manifest); anything unreadable or malformed is
    an :class:`InstallError`: guessing would make uninstall remove the wrong things."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:  # a directory, SKILLOPT_SLEEP_HOME a file, not JSON
        raise _damaged(path, str(exc)) from exc
    raw_entries = data.get("entries", []) if isinstance(data, dict) else None
    if not isinstance(raw_entries, list):
        raise _damaged(path, "not an object with an `entries` list")
    entries: list[Entry] = []
    for raw in raw_entries:
        try:
            entry = Entry(**raw)
        except TypeError as exc:  # not an object, an unknown or a missing key
            raise _damaged(path, f"bad entry {raw!r:.80}: {exc}") from exc
        if entry.kind not in get_args(EntryKind):
            raise _damaged(path, f"unknown entry kind {entry.kind!r}")
        entries.append(entry)
    return entries


def _damaged(path: Path, why: str) -> InstallError:
    return InstallError(
        path,
        f"the install manifest {path} is damaged ({why})",
        hint=f"move it aside (mv {path} {path}.damaged; or move SKILLOPT_SLEEP_HOME aside if it "
        "is not a folder), then run `skillopt-sleep install` again; remove the shims it listed "
        "by hand",
    )
