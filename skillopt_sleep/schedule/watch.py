"""The transcript directories the daemon watches, and the watchdog observer on them.

The directories are the ones the harvest sources read, found the same way (an explicit home from
the configuration's ``[homes]``, else the harness's environment variable, else its default; see
:class:`skillopt_sleep.harvest.HarvestConfig`). Only transcript files (``*.jsonl``) count as
changes; a directory that does not exist yet is reported, not watched, until it appears.

The daemon runs for weeks, so what it watches is not fixed at start: it hands
:meth:`Watcher.update` the folders it wants now (the configuration read again, each folder's
existence checked), and the watcher starts and stops watches to match: a harness used for the
first time after the daemon started, a ``[homes]`` entry edited, a folder deleted and made again
(inotify ends the watch of a deleted folder).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# source name -> (environment variable, default home, transcript folders under the home)
TRANSCRIPT_DIRS: Mapping[str, tuple[str, str, tuple[str, ...]]] = {
    "claude": ("CLAUDE_CONFIG_DIR", "~/.claude", ("projects",)),
    "codex": ("CODEX_HOME", "~/.codex", ("sessions", "archived_sessions")),
    "copilot": ("COPILOT_HOME", "~/.copilot", ("session-state",)),
}


@dataclass(frozen=True)
class WatchPlan:
    watched: tuple[Path, ...]
    missing: tuple[Path, ...]


def transcript_dirs(project: Path, sources: Iterable[str], homes: Mapping[str, Path]) -> list[Path]:
    from skillopt_sleep.harvest import HarvestConfig

    config = HarvestConfig(project=project, homes=dict(homes))
    wanted = set(sources)
    if "all" in wanted:
        wanted = set(TRANSCRIPT_DIRS)
    out: list[Path] = []
    for name, (env_var, default, folders) in TRANSCRIPT_DIRS.items():
        if name in wanted:
            home = config.home(name, env_var, default)
            out.extend(home / folder for folder in folders)
    return out


def plan(dirs: Iterable[Path]) -> WatchPlan:
    every = tuple(dict.fromkeys(dirs))
    return WatchPlan(
        tuple(d for d in every if d.is_dir()), tuple(d for d in every if not d.is_dir())
    )


def is_transcript_change(path: str, is_directory: bool) -> bool:
    return not is_directory and path.endswith(".jsonl")


def configured_dirs(project: Path, load_config: Callable[[], Any]) -> Callable[[], list[Path]]:
    """The folders to watch under ``project``'s configuration as it is when asked (its sources
    and ``[homes]`` may be edited while the daemon runs)."""

    def dirs() -> list[Path]:
        config = load_config()
        return transcript_dirs(project, config.night.sources, config.homes)

    return dirs


@dataclass(frozen=True)
class WatchChange:
    """What one :meth:`Watcher.update` did. ``failed`` holds only new failures (or changed
    messages), so a folder that cannot be watched is reported once, not at every update."""

    added: tuple[Path, ...] = ()
    removed: tuple[Path, ...] = ()
    missing: tuple[Path, ...] = ()
    failed: tuple[tuple[Path, str], ...] = ()


class Watcher:
    """A started watchdog observer calling ``on_change`` for every transcript write in the
    folders last given to :meth:`update`. Not thread-safe: one thread updates it."""

    def __init__(self, on_change: Callable[[], None], observer: Any = None) -> None:
        if observer is None:
            from watchdog.observers import Observer

            observer = Observer()
        self._observer = observer
        self._handler = _handler(on_change)
        self._watches: dict[Path, Any] = {}  # folder -> watchdog's ObservedWatch
        self._failed: dict[Path, str] = {}
        observer.daemon = True
        observer.start()

    @property
    def watched(self) -> tuple[Path, ...]:
        return tuple(self._watches)

    def update(self, dirs: Iterable[Path]) -> WatchChange:
        """Watch exactly those of ``dirs`` that are folders now."""
        wanted = plan(dirs)
        dead = {e.watch for e in set(self._observer.emitters) if not e.is_alive()}
        removed = tuple(
            folder
            for folder, watch in self._watches.items()
            if folder not in wanted.watched or watch in dead
        )
        for folder in removed:
            with contextlib.suppress(KeyError, OSError):  # its folder is gone: nothing to undo
                self._observer.unschedule(self._watches.pop(folder))
        added: list[Path] = []
        failed: list[tuple[Path, str]] = []
        for folder in wanted.watched:
            if folder in self._watches:
                continue
            try:
                watch = self._observer.schedule(self._handler, str(folder), recursive=True)
            except OSError as exc:  # e.g. the inotify watch limit: tried again at the next update
                if self._failed.get(folder) != str(exc):
                    failed.append((folder, str(exc)))
                self._failed[folder] = str(exc)
                continue
            self._watches[folder] = watch
            self._failed.pop(folder, None)
            added.append(folder)
        self._failed = {f: e for f, e in self._failed.items() if f in wanted.watched}
        return WatchChange(tuple(added), removed, wanted.missing, tuple(failed))

    def stop(self) -> None:
        self._observer.stop()

    def join(self) -> None:
        self._observer.join()


def _handler(on_change: Callable[[], None]) -> Any:
    """A watchdog handler calling ``on_change`` for transcript writes only."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    class _Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type not in ("created", "modified", "moved", "closed"):
                return
            paths = (event.src_path, getattr(event, "dest_path", "") or "")
            if any(is_transcript_change(str(p), event.is_directory) for p in paths if p):
                on_change()

    return _Handler()
