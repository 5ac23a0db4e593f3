"""VS Code Copilot Chat sessions: ``<user dir>/workspaceStorage/<id>/chatSessions/*.jsonl``.

User dirs: the explicit ``vscode`` home (a user-data dir, its ``User`` dir or a
``workspaceStorage`` dir), else ``$VSCODE_PORTABLE/user-data/User`` and the stable and Insiders
dirs of the platform (Linux ``$XDG_CONFIG_HOME`` or ``~/.config``, macOS
``~/Library/Application Support``, Windows ``%APPDATA%``) plus the remote server's
``~/.vscode-server*/data/User``. A workspace belongs to the project when the ``folder`` (or the
directory of the ``workspace`` file) in its ``workspace.json`` is the project root or below it.

Each session file is VS Code's mutation log (see ``_oplog``); it is replayed, keeping only
``github.copilot-chat`` requests that the user typed. The older pretty-printed whole-JSON
``chatSessions/*.json`` files are not read: the line reader cannot parse them.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from skillopt_sleep.harvest._build import in_project
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._oplog import INITIAL, apply_entry
from skillopt_sleep.harvest._registry import (
    SOURCES,
    Feed,
    HarvestConfig,
    Source,
    Unreadable,
    is_file,
    scan,
)
from skillopt_sleep.harvest._vscode_chat import (
    KEEP_DEPTH,
    SCHEMA,
    prune,
    schema_at,
    session_events,
    strip_private,
)

PRODUCTS = ("Code", "Code - Insiders")
_SERVER_DIRS = (".vscode-server", ".vscode-server-insiders")
_DRIVE = re.compile(r"^/[A-Za-z]:")
_DOC = "doc"  # FileState.extra key of the replayed (pruned, redacted) session object


def user_dirs(env: Mapping[str, str], home: Path, system: str) -> list[Path]:
    """Candidate VS Code ``User`` dirs for ``system`` (``platform.system()`` value)."""
    if system == "Darwin":
        base = home / "Library" / "Application Support"
    elif system == "Windows":
        base = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    else:
        base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    dirs = [base / product / "User" for product in PRODUCTS]
    if env.get("VSCODE_PORTABLE"):
        dirs.insert(0, Path(env["VSCODE_PORTABLE"]) / "user-data" / "User")
    dirs.extend(home / server / "data" / "User" for server in _SERVER_DIRS)
    return dirs


def storage_roots(config: HarvestConfig) -> list[Path]:
    """The ``workspaceStorage`` dirs to scan."""
    explicit = config.homes.get("vscode")
    if explicit is not None:
        root = Path(explicit).expanduser()
        if root.name == "workspaceStorage":
            return [root]
        return [root / "User" / "workspaceStorage", root / "workspaceStorage"]
    dirs = user_dirs(os.environ, Path.home(), platform.system())
    return [d / "workspaceStorage" for d in dirs]


def folder_of(uri: str, remote_ok: bool = False) -> str:
    """Local path of a ``file://`` URI (percent-decoded; ``/c:/x`` -> ``c:/x``), else ``""``."""
    parts = urlsplit(uri)
    if parts.scheme != "file" and not (remote_ok and parts.scheme == "vscode-remote"):
        return ""
    path = unquote(parts.path)
    if _DRIVE.match(path):
        path = path[1:]
    return path.rstrip("/") or "/"


@lru_cache(maxsize=4096)
def workspace_folder(workspace_dir: Path) -> str:
    """The folder a ``workspaceStorage/<id>`` dir belongs to, from its ``workspace.json``."""
    try:
        data = orjson.loads((workspace_dir / "workspace.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return ""
    if not isinstance(data, dict):
        return ""
    remote_ok = any(part in _SERVER_DIRS for part in workspace_dir.parts)
    if isinstance(data.get("folder"), str):
        return folder_of(data["folder"], remote_ok)
    if isinstance(data.get("workspace"), str):
        file = folder_of(data["workspace"], remote_ok)
        return file.rsplit("/", 1)[0] or "/" if file else ""
    return ""


class VsCodeChatSource(Source):
    name = "vscode"
    harness = "copilot"

    def discover(self, config: HarvestConfig) -> Iterator[Path | Unreadable]:
        workspace_folder.cache_clear()
        project = str(config.project)
        for root in storage_roots(config):
            workspaces = scan(root)
            if not isinstance(workspaces, list):
                if workspaces is not None:
                    yield workspaces
                continue
            for entry in workspaces:
                folder = workspace_folder(Path(entry.path)) if entry.is_dir() else ""
                if not folder or not in_project(folder, project):
                    continue
                files = scan(Path(entry.path) / "chatSessions")
                if not isinstance(files, list):
                    if files is not None:
                        yield files
                    continue
                for file in files:
                    regular = is_file(file) if file.name.endswith(".jsonl") else False
                    if isinstance(regular, Unreadable) or regular:
                        yield regular if isinstance(regular, Unreadable) else Path(file.path)

    def session_key(self, state: FileState, path: Path) -> str:
        """Also where the workspace folder is attached: the records themselves carry no cwd."""
        state.set_meta("cwd", workspace_folder(path.parent.parent))
        return state.session_id or path.stem

    def feed(self, state: FileState, record: Any, config: HarvestConfig) -> Feed:
        kind = record.get("kind")
        if kind == INITIAL:
            state.extra[_DOC] = prune(record.get("v"), SCHEMA)
        elif kind in (1, 2, 3):
            path = record.get("k")
            if not isinstance(path, list) or not path or len(path) > KEEP_DEPTH:
                return Feed.UNKNOWN
            node = schema_at(path)
            if node is None:
                return Feed.IGNORED  # a field the harvest does not keep
            entry = dict(record)
            if "v" in entry and kind != 3:
                entry["v"] = prune(entry["v"], node)
            state.extra[_DOC] = apply_entry(state.extra.get(_DOC), entry)
            strip_private(state.extra[_DOC], path)
        else:
            return Feed.UNKNOWN
        meta, events = session_events(state.extra.get(_DOC))
        for key, value in meta.items():
            state.set_meta(key, value, overwrite=True)
        state.events[:] = events
        return Feed.USED


SOURCES.add("vscode", VsCodeChatSource())
