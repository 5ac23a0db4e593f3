"""The one registry of transcript sources and the contract a source module fulfils.

Adding a harness is one module: subclass :class:`Source`, implement ``discover`` and ``feed``,
and register an instance with ``SOURCES.add(name, MySource())`` (the module must also be listed
in ``SOURCE_MODULES`` so it is imported on demand).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from skillopt_core.registry import Registry
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import DEFAULT_MAX_LINE
from skillopt_sleep.records import Harness

SOURCE_MODULES: tuple[str, ...] = ("claude", "codex", "copilot", "vscode")


class Feed(str, Enum):
    """What a source made of one record."""

    USED = "used"  # contributed events or session metadata
    IGNORED = "ignored"  # a known record type that carries nothing we keep
    UNKNOWN = "unknown"  # a record type this source does not know (counted)
    SIDECHAIN = "sidechain"  # a sub-agent record (excluded unless asked for)


@dataclass(frozen=True)
class HarvestConfig:
    """Where to look and what to keep. ``homes`` overrides a harness's home (e.g. ~/.claude)."""

    project: Path
    homes: Mapping[str, Path] = field(default_factory=dict)
    include_sidechains: bool = False
    max_line_bytes: int = DEFAULT_MAX_LINE

    def home(self, harness: str, env_var: str, default: str) -> Path:
        """Explicit home, else the harness's environment variable, else its default."""
        if harness in self.homes:
            return Path(self.homes[harness]).expanduser()
        override = os.environ.get(env_var)
        return Path(override).expanduser() if override else Path(default).expanduser()


class Unreadable(NamedTuple):
    """A place ``discover`` could not look into (reported, never silently empty)."""

    path: Path
    reason: str

    @classmethod
    def of(cls, path: str | os.PathLike[str], error: OSError) -> Unreadable:
        return cls(Path(path), error.strerror or type(error).__name__)


def scan(folder: str | os.PathLike[str]) -> list[os.DirEntry[str]] | Unreadable | None:
    """A folder's entries sorted by name; None when it does not exist (nothing to report), an
    :class:`Unreadable` when it exists but cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda e: e.name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Unreadable.of(folder, exc)


def is_file(entry: os.DirEntry[str]) -> bool | Unreadable:
    """``entry.is_file()``, with a link loop or a permission error reported instead of raised."""
    try:
        return entry.is_file()
    except OSError as exc:
        return Unreadable.of(entry.path, exc)


class Source:
    """A transcript source: finds files, and folds each parsed record into a :class:`FileState`."""

    name: str = ""
    harness: Harness = "claude"
    # Line prefixes of records that carry nothing we keep (e.g. ``b'{"type":"summary"'``): such
    # lines are skipped unparsed. Only a prefix test is cheaper than orjson parsing the line and
    # ``feed`` dropping it by type, so a record recognisable only further in is simply parsed.
    ignorable: tuple[bytes, ...] = ()
    # The same as a pattern matched at the start of a line, for records whose type follows a
    # first field (``{"timestamp":"...","type":"token_count"...``); a match is skipped unparsed.
    ignorable_head: re.Pattern[bytes] | None = None
    # A compiled fold of the common records: ``fold_lines(data, start, end, state, sidechains)``
    # folds the lines of ``data[start:end]`` in order, each exactly as ``parse`` then ``feed``
    # would, until one it does not handle: it returns where to go on, that line's start and end
    # (-1, -1: none) and how many sidechain records it skipped (see ``_compiled``).
    fold_lines: Callable[..., tuple[int, int, int, int]] | None = None

    def discover(self, config: HarvestConfig) -> Iterator[Path | Unreadable]:
        """Candidate transcript files (may pre-filter cheaply by project; scope is checked later),
        and the places that could not be read (see :func:`scan`)."""
        raise NotImplementedError

    def parse(self, line: bytes) -> Any:
        return orjson.loads(line)

    def feed(self, state: FileState, record: Any, config: HarvestConfig) -> Feed:
        """Fold one parsed record into ``state`` (append events, set meta)."""
        raise NotImplementedError

    def session_key(self, state: FileState, path: Path) -> str:
        """Files with the same key are one session (continuations written to several files)."""
        return state.session_id or path.stem

    def project_dir(self, state: FileState) -> str:
        """The directory the session ran in, used for project scoping."""
        return state.cwd


SOURCES: Registry[Source] = Registry("transcript source")


def load_sources() -> Registry[Source]:
    """Import every known source module (each registers itself); absent modules are skipped."""
    for module in SOURCE_MODULES:
        try:
            importlib.import_module(f"skillopt_sleep.harvest.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"skillopt_sleep.harvest.{module}":
                raise
    return SOURCES


def select(names: tuple[str, ...] | None) -> list[Source]:
    """Sources by registry name or by harness (``copilot`` selects every Copilot source)."""
    registry = load_sources()
    chosen = [registry.get(n) for n in registry.names()]
    if not names or "all" in names:
        return chosen
    picked = [s for s in chosen if s.name in names or s.harness in names]
    unknown = [n for n in names if not any(n in (s.name, s.harness) for s in chosen)]
    if unknown:
        registry.get(unknown[0])  # raises a helpful UnknownEntryError
    return picked


def missing_homes(
    names: Iterable[str] | None, homes: Mapping[str, str | os.PathLike[str]]
) -> dict[str, Path]:
    """The homes given for the sources ``names`` selects (as :func:`select`) that are no folder.
    A harness's usual home that is absent is a harness not installed (nothing to say), but a
    folder someone named and mistyped reads nothing, which looked like no session at all."""
    chosen = {source.name for source in select(tuple(names) if names else None)}
    out: dict[str, Path] = {}
    for name, given in homes.items():
        if name not in chosen or not str(given):
            continue
        path = Path(given).expanduser()
        try:
            if not path.is_dir():
                out[name] = path
        except OSError:  # there but unreadable: discovery reports it
            continue
    return out


def missing_home_notes(
    names: Iterable[str] | None,
    homes: Mapping[str, str | os.PathLike[str]],
    origin: Callable[[str], str],
) -> list[str]:
    """What to tell the user of each :func:`missing_homes`; ``origin(name)`` says where that
    home was set (``--claude-home``, ``homes.claude in <file>``...)."""
    notes = []
    for name, path in missing_homes(names, homes).items():
        what = "is not a folder" if path.exists() else "does not exist"
        notes.append(
            f"the {name} home {path} (set by {origin(name)}) {what}, so no {name} session was "
            f"read: correct it, or leave it unset to read {name}'s usual place"
        )
    return notes
