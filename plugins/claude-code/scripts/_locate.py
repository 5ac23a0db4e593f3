"""Where SkillOpt-Sleep keeps its state, computed without the engine (stdlib only).

The plugin's launcher and hook run from Claude Code's plugin cache under whatever Python is on
PATH, so they cannot import the engine to ask. This mirrors ``skillopt_sleep.paths.state_dir``:
``$SKILLOPT_SLEEP_HOME``, else the platform's user state dir for ``skillopt-sleep``.
"""

from __future__ import annotations

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
