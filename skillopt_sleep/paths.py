"""Platform-correct locations for the engine's state (indexes, archive, staging, logs).

``SKILLOPT_SLEEP_HOME`` overrides the base directory (tests and portable installs use it).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def state_dir() -> Path:
    override = os.environ.get("SKILLOPT_SLEEP_HOME")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("skillopt-sleep", appauthor=False))


def project_key(project: str | os.PathLike[str]) -> str:
    """A readable, collision-safe folder name for a project root."""
    resolved = str(Path(project).expanduser().resolve())
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(resolved).name).strip("-") or "root"
    digest = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:10]
    return f"{tail}-{digest}"


def project_state_dir(project: str | os.PathLike[str]) -> Path:
    return state_dir() / "projects" / project_key(project)
