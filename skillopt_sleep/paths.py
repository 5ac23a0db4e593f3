"""Platform-correct locations for the engine's state (indexes, archive, staging, logs).

``SKILLOPT_SLEEP_HOME`` overrides the base directory (tests and portable installs use it).
State holds redacted transcripts, but redacted is not public: every directory the engine creates
for it is private to the user (0700) and every file in it 0600 (see :func:`private_dir` and
:func:`private_file`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import sys
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


PROJECT_CONFIG = Path(".skillopt-sleep") / "config.toml"
_APP = "skillopt-sleep"


def user_config_path() -> Path:
    """The user's config file (``SKILLOPT_SLEEP_CONFIG``, else the platform's config dir)."""
    override = os.environ.get("SKILLOPT_SLEEP_CONFIG")
    if override:
        return Path(override).expanduser()
    folder = _xdg_folder("XDG_CONFIG_HOME", ".config")
    if folder is None:
        import platformdirs

        folder = Path(platformdirs.user_config_dir(_APP, appauthor=False))
    return folder / "config.toml"


def project_config_path(project: str | os.PathLike[str]) -> Path:
    return Path(project) / PROJECT_CONFIG


def state_dir() -> Path:
    """``$SKILLOPT_SLEEP_HOME`` (absolute: a relative one named another folder once a schedule's
    shell ran from elsewhere, so its log and its state parted), else the platform's state dir."""
    override = os.environ.get("SKILLOPT_SLEEP_HOME")
    if override:
        return Path(override).expanduser().absolute()
    folder = _xdg_folder("XDG_STATE_HOME", ".local/state")
    if folder is not None:
        return folder
    import platformdirs

    return Path(platformdirs.user_state_dir(_APP, appauthor=False))


def _xdg_folder(variable: str, default: str) -> Path | None:
    """platformdirs' per-user folder of the engine on Linux, without importing it (with the
    tempfile and shutil it imports, about 12 ms of a harvest's start-up), where every version of
    it answers alike: ``$variable`` absolute, or unset or empty and then ``$HOME/default`` with an
    absolute HOME. None anywhere else (another system, Android, a relative or blank value, no
    HOME): platformdirs answers."""
    android = hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ
    if sys.platform != "linux" or android or "ANDROID_ROOT" in os.environ:
        return None
    value = os.environ.get(variable, "")
    if value:
        return Path(value, _APP) if os.path.isabs(value) else None
    home = os.environ.get("HOME", "")
    return Path(home, default, _APP) if os.path.isabs(home) else None


def project_key(project: str | os.PathLike[str]) -> str:
    """A readable, collision-safe folder name for a project root (a folder named after a secret
    shows as ``REDACTED-...``: state file names are stored data too).

    The readable part follows the redaction rules of the version that made the folder; the digest
    of the root does not change. So a folder an earlier version made for the project under other
    rules (before 44c95a6 names were not redacted at all) stays the project's folder: naming it
    anew would hide its nights, proposals, backups and schedule and harvest everything again."""
    from skillopt_core.redaction import redact

    resolved = str(Path(project).expanduser().resolve())
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", redact(Path(resolved).name)).strip("-") or "root"
    digest = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:10]
    key = f"{tail}-{digest}"
    projects = state_dir() / "projects"
    if (projects / key).exists():
        return key
    return _earlier_key(projects, digest, resolved) or key


def _earlier_key(projects: Path, digest: str, resolved: str) -> str | None:
    """The folder under ``projects`` an earlier version named for ``resolved``: same digest, and
    a ``project.json`` that names no other project."""
    try:
        folders = sorted(p for p in projects.iterdir() if p.name.endswith(f"-{digest}"))
    except OSError:  # no state yet
        return None
    for folder in folders:
        try:
            recorded = json.loads((folder / "project.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or damaged: ProjectState says so
            recorded = None
        if (recorded.get("project") if isinstance(recorded, dict) else None) in (None, resolved):
            return folder.name
    return None


def home_held_by(folder: Path) -> Path | None:
    """The user's home folder when ``folder`` is it or holds it (``~``, ``/home``, ``/``), else
    None. A night in such a folder would read the sessions of every project under it and stage
    into the user-wide skill folders, so no night runs there."""
    try:
        resolved, home = folder.resolve(), Path.home().resolve()
    except (OSError, RuntimeError):  # no home to hold, or a path that cannot be resolved
        return None
    return home if resolved == home or resolved in home.parents else None


def project_state_dir(project: str | os.PathLike[str]) -> Path:
    return state_dir() / "projects" / project_key(project)


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` (and any missing parents) readable by the owner only; return it.

    Directories created here are 0700 whatever the umask; an existing directory is left as it
    is (it may be one the user chose, such as a ``--state-dir`` they share on purpose), but the
    files the engine writes into it are 0600 regardless (:func:`private_file`). Failures are
    OSErrors with an errno (callers choose their advice by it: ``engine.state.storage_error``).
    """
    target = Path(path).expanduser()
    missing: list[Path] = []
    probe = target
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            folder.mkdir(mode=PRIVATE_DIR_MODE)
            folder.chmod(PRIVATE_DIR_MODE)  # mkdir's mode is masked; make it exact
    if not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(target))
    return target


def private_file(path: str | os.PathLike[str]) -> Path:
    """Make sure ``path`` exists as a 0600 file (created empty if absent); return it.

    Used before a library (SQLite) creates a state file with the process umask; SQLite gives its
    journals the database file's mode, so they are private too.
    """
    target = Path(path)
    fd = os.open(target, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    os.close(fd)
    _tighten(target, PRIVATE_FILE_MODE)
    return target


def _tighten(path: Path, mode: int) -> None:
    """chmod ``path`` to ``mode`` when it is ours and grants anything to group or others."""
    with contextlib.suppress(OSError):
        st = path.stat()
        owned = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        if owned and stat.S_IMODE(st.st_mode) & 0o077:
            path.chmod(mode)
