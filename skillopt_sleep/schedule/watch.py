"""The transcript directories the daemon watches, and the watchdog observer on them.

The directories are the ones the harvest sources read, found the same way (an explicit home from
the configuration's ``[homes]``, else the harness's environment variable, else its default; see
:class:`skillopt_sleep.harvest.HarvestConfig`). Only transcript files (``*.jsonl``) count as
changes; a directory that does not exist yet is reported, not watched.
"""

from __future__ import annotations

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


def start_observer(dirs: Iterable[Path], on_change: Callable[[], None]) -> Any:
    """A started watchdog ``Observer`` calling ``on_change`` for every transcript write."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class _Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type not in ("created", "modified", "moved", "closed"):
                return
            paths = (event.src_path, getattr(event, "dest_path", "") or "")
            if any(is_transcript_change(str(p), event.is_directory) for p in paths if p):
                on_change()

    observer = Observer()
    handler = _Handler()
    for folder in dirs:
        observer.schedule(handler, str(folder), recursive=True)
    observer.daemon = True
    observer.start()
    return observer
