"""Which project a tool call is about: the argument, else the client's workspace root.

Harness clients start MCP servers wherever they like (often the server's install directory), so
the server's own working directory is never a default. Order: the ``project`` argument; the
first ``file://`` root the client declares (MCP roots); the server's ``--project``;
``$SKILLOPT_SLEEP_PROJECT`` (set by a client config that knows the workspace, e.g. VS Code's
``${workspaceFolder}``); else a clear error. What a model names (a project, a job) must lie in
that declared workspace.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from skillopt_core.errors import UsageError
from skillopt_sleep.paths import home_held_by

PROJECT_ENV = "SKILLOPT_SLEEP_PROJECT"
SHOWN_CHARS = 200  # of a project path an error repeats (the argument can be megabytes)


def root_paths(roots: Any) -> list[Path]:
    """Local directories from a ``ListRootsResult`` (non-``file`` roots are skipped)."""
    found: list[Path] = []
    for root in getattr(roots, "roots", None) or ():
        parsed = urlparse(str(root.uri))
        if parsed.scheme != "file":
            continue
        path = unquote(parsed.path)
        if os.name == "nt" and len(path) > 2 and path[0] == "/" and path[2] == ":":
            path = path[1:]  # file:///C:/x -> C:/x
        found.append(Path(path))
    return found


def workspace(roots: Sequence[Path] = (), default: Path | None = None) -> list[Path]:
    """The folders the user's side declared: the client's roots, else the server's
    ``--project``, else ``$SKILLOPT_SLEEP_PROJECT``. A relative ``$SKILLOPT_SLEEP_PROJECT`` is
    refused, never resolved against the server's working directory, which the harness chose."""
    if roots:
        return list(roots)
    if default is not None:
        return [default]
    value = os.environ.get(PROJECT_ENV)
    if not value:
        return []
    env = Path(value).expanduser()
    if not env.is_absolute():
        raise UsageError(
            f"{PROJECT_ENV} must be an absolute path, got {_shown(env)}",
            hint=f"set {PROJECT_ENV} in the server's env to the repository's absolute path",
        )
    return [env]


def resolve_project(
    project: str | None,
    roots: Sequence[Path] = (),
    default: Path | None = None,
    night: bool = False,
) -> Path:
    """The project directory for one call, or UsageError saying how to name one.

    The ``project`` argument is chosen by a model, which a prompt can steer: when the user's
    side declared the workspace (:func:`workspace`) it must be inside it, and it is never a
    folder that holds the user's home (``/``, ``/home``, ``~``), whose nights would read every
    project's sessions. With ``night`` (the call starts one) neither is the declared workspace:
    a client opened in the home folder, or ``mcp --project ~``, reads and lists as it is but
    runs no night there, as the CLI's ``run`` does not."""
    bounds = workspace(roots, default)
    chosen: Path | None = None
    if project:
        chosen = Path(project).expanduser()
    elif bounds:
        chosen = bounds[0]
    if chosen is None:
        raise UsageError(
            "no project: the client declared no workspace root and no project was given",
            hint=f"pass project='/path/to/repo' (or set {PROJECT_ENV} in the server's env)",
        )
    if not chosen.is_absolute():
        raise UsageError(f"project must be an absolute path, got {_shown(chosen)}")
    if not chosen.is_dir():
        raise UsageError(f"project {_shown(chosen)} is not a directory")
    resolved = chosen.resolve()
    if project or night:
        _check_home(resolved, given=bool(project))
    if project:
        _check_inside(resolved, bounds, f"project {_shown(resolved)} is")
    return resolved


def check_job_inside(
    job_id: str, project: Path, roots: Sequence[Path] = (), default: Path | None = None
) -> None:
    """Refuse a job (named by an id a model chose) of a project outside the declared workspace,
    as a ``project`` argument there is refused; the error does not name that project."""
    try:
        resolved = project.resolve()
    except (OSError, ValueError):
        resolved = project
    _check_inside(resolved, workspace(roots, default), f"job {job_id!r} is of a project")


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_home(resolved: Path, given: bool) -> None:
    """Refuse a project that holds the home folder: ``given`` as the ``project`` argument, else
    the declared workspace's."""
    if home_held_by(resolved) is None:
        return
    if given:
        hint = "pass the repository's own folder"
    else:
        hint = (
            "open the repository's own folder in the client (its workspace root), or pass "
            "project='/path/to/repo'"
        )
    raise UsageError(
        f"project {_shown(resolved)} holds your home folder: a night there would read the "
        "sessions of every project",
        hint=hint,
    )


def _check_inside(resolved: Path, workspace: Sequence[Path], what: str) -> None:
    """Refuse ``resolved`` outside the declared workspace (none declared: nothing to refuse);
    ``what`` begins the error."""
    folders = []
    for folder in workspace:
        try:
            folders.append(folder.expanduser().resolve())
        except (OSError, ValueError):  # a root that cannot be resolved bounds nothing
            continue
    if folders and not any(_within(resolved, f) for f in folders):
        shown = ", ".join(_shown(f) for f in folders[:3])
        raise UsageError(
            f"{what} outside the workspace ({shown})",
            hint="work on the workspace's project, or run `skillopt-sleep` yourself for another",
        )


def _shown(path: Path) -> str:
    """``path`` quoted for an error, controls escaped, cut to :data:`SHOWN_CHARS` characters."""
    text = str(path)
    if len(text) <= SHOWN_CHARS:
        return repr(text)
    return f"{text[:SHOWN_CHARS]!r}... ({len(text)} characters)"
