"""Where SkillOpt-Sleep keeps its state, and whether the engine it recorded is still there,
computed without the engine (stdlib only).

The plugin's launcher and hook run from Claude Code's plugin cache under whatever Python is on
PATH, so they cannot import the engine to ask. This mirrors ``skillopt_sleep.paths.state_dir``:
``$SKILLOPT_SLEEP_HOME``, else the platform's user state dir for ``skillopt-sleep``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def state_dir() -> Path:
    override = os.environ.get("SKILLOPT_SLEEP_HOME")
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "skillopt-sleep"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "skillopt-sleep"
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule (platformdirs too): a relative value is no path
        base = str(home / ".local" / "state")
    return Path(base) / "skillopt-sleep"


def engine_pointer() -> Path:
    """``engine.json``, written by ``skillopt-sleep install``: the engine's absolute commands."""
    return state_dir() / "install" / "engine.json"


REINSTALL = (
    "reinstall from the clone: bash scripts/bootstrap.sh && .venv/bin/skillopt-sleep install"
)


def gone(path: str) -> str:
    """The line every shim prints for an engine that is gone (the engine's own wrappers say the
    same: ``skillopt_sleep.install.engine_command.gone``)."""
    return f"skillopt-sleep: the engine {path} is gone (moved or deleted); {REINSTALL}"


def recorded(kind: str = "cli") -> list[str] | None:
    """The ``kind`` command (a list of strings) ``engine.json`` records; None when there is none
    or the file is damaged (not JSON, not an object, no such list)."""
    try:
        data = json.loads(engine_pointer().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    argv = data.get(kind) if isinstance(data, dict) else None
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return None
    return list(argv)


def missing_engine(kind: str = "cli") -> str | None:
    """:func:`gone` for the ``kind`` command ``engine.json`` records when its executable is no
    longer there (the clone or its venv moved or deleted); None when it is there, or when no
    engine was recorded (nothing installed through ``skillopt-sleep install``)."""
    argv = recorded(kind)
    if argv is None or os.path.isfile(argv[0]):
        return None
    return gone(argv[0])
