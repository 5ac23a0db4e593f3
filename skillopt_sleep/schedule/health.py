"""Whether an installed schedule can still run, and what its entry says when it cannot.

A nightly entry names three things that can go away under it after ``schedule`` wrote it: the
engine (the interpreter of a clone or venv since moved or deleted, or one skillopt-sleep was
uninstalled from), the project (renamed or deleted) and its log (a state dir made read-only, a
``logs`` that is no longer a folder). The entry checks the first two itself before it starts
anything (:func:`engine_gone`, :func:`engine_without_us` and :func:`project_gone` are the lines it
appends to the log, each with its fix), because otherwise
the night fails at 03:17 with a bare ``not found`` or, for a project, with ``cd``'s complaint
sent to cron's mail, which nobody reads. :func:`problems` finds the same three from the record,
for ``status`` and ``doctor``; a log the scheduler cannot write leaves no trace at all, so only
they can tell.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PREFIX = "skillopt-sleep: "
ENGINE_GONE_EXIT = 127  # the shell's "command not found", as the install wrappers use
PROJECT_GONE_EXIT = 66  # EX_NOINPUT


@dataclass(frozen=True)
class Problem:
    """One reason the scheduled night cannot run, and the way out."""

    detail: str
    fix: str


def reschedule(project: str, at: str, profile: Sequence[str], cli: str = "skillopt-sleep") -> str:
    """The command that writes this schedule again (same project, time and flags)."""
    return f"{cli} schedule {shlex.join(['-p', project, '--at', at, *profile])}"


def engine_gone(python: str, project: str, at: str, profile: Sequence[str]) -> Problem:
    return Problem(
        f"the engine {python} of the nightly schedule is gone (moved or deleted)",
        f"run `{reschedule(project, at, profile)}` from the install you use now",
    )


def engine_without_us(python: str, project: str, at: str, profile: Sequence[str]) -> Problem:
    return Problem(
        f"the engine {python} of the nightly schedule cannot import skillopt_sleep "
        "(uninstalled from it, or the interpreter is broken)",
        f"reinstall skillopt-sleep there, or run `{reschedule(project, at, profile)}` from the "
        "install you use now",
    )


# Whether ``python -m skillopt_sleep`` would find the module, without importing it: exit 1 if not.
FINDS_US = "import importlib.util as u, sys; sys.exit(u.find_spec('skillopt_sleep') is None)"


def finds_us(python: str, cwd: str) -> bool:
    """Whether ``python`` run in ``cwd`` (the project, as the night runs) can import us; an
    engine that does not answer within ten seconds counts as one that can (never a false alarm
    on a busy machine)."""
    import subprocess

    try:
        done = subprocess.run(
            [python, "-c", FINDS_US],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return True
    except OSError:
        return False
    return done.returncode == 0


def project_gone(project: str) -> Problem:
    return Problem(
        f"the project {project} of the nightly schedule is gone (moved or deleted)",
        f"`skillopt-sleep unschedule -p {shlex.quote(project)}`, then `skillopt-sleep schedule` "
        "in the project's new place",
    )


def log_unwritable(log: str, why: str) -> Problem:
    return Problem(
        f"the nightly schedule cannot write its log {log} ({why}): its nights fail unseen",
        f"make {os.path.dirname(log)} a folder you can write (or free some disk space)",
    )


def zone_shifted(zone: str, at: str, shown: str, fires: str, again: str) -> Problem:
    """The crontab entry sits below the user's ``CRON_TZ={zone}`` (an older version appended it
    there, or the line was added above it since): cronie fires it on that zone's clock, not on
    the system one ``status`` shows. ``fires`` says when that is on the system clock ("" when
    unknown); ``again`` names the command that writes the entry again, above the ``CRON_TZ``
    lines."""
    when = f" ({fires} {shown} time)" if fires else ""
    return Problem(
        f"the nightly crontab entry sits below `CRON_TZ={zone}` in your crontab: where cron "
        f"honours CRON_TZ (cronie: Fedora, RHEL, Arch) it fires at {at} {zone} time{when}, not "
        f"at {at} {shown} time as shown",
        f"run {again}: it moves the entry above your CRON_TZ lines, which keep applying "
        "to your own entries",
    )


def line(problem: Problem) -> str:
    """The one line the entry appends to its log."""
    return f"{PREFIX}{problem.detail}; fix: {problem.fix}"


def profile_of(argv: Sequence[str]) -> tuple[str, ...]:
    """The saved ``run`` flags of an entry's argv (``python -m skillopt_sleep run --project P``
    and then the flags)."""
    return tuple(argv[6:])


def problems(argv: Sequence[str], project: str, at: str, log: str) -> list[Problem]:
    """What stops the recorded entry from running tonight (empty when nothing does)."""
    found: list[Problem] = []
    python = argv[0] if argv else ""
    engine_runs = os.path.isfile(python) and os.access(python, os.X_OK)
    if not engine_runs:
        found.append(engine_gone(python, project, at, profile_of(argv)))
    if not os.path.isdir(project):
        found.append(project_gone(project))
    elif engine_runs and not _is_this_engine(python) and not finds_us(python, project):
        found.append(engine_without_us(python, project, at, profile_of(argv)))
    why = _unwritable(Path(log))
    if why:
        found.append(log_unwritable(log, why))
    return found


def _is_this_engine(python: str) -> bool:
    """The interpreter running this check imports us: no need to start another to ask. Paths
    are compared, not resolved: every venv's ``python`` links to the same base interpreter, and
    another venv on it need not hold us."""
    import sys

    return os.path.abspath(python) == os.path.abspath(sys.executable)


def _unwritable(log: Path) -> str:
    """Why the scheduler's shell could not append to ``log`` ("" when it could): it creates the
    logs folder itself, so only one that exists and refuses counts."""
    folder = log.parent
    if not folder.exists():
        return "" if _writable_ancestor(folder) else f"{folder} cannot be created"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if log.exists() and (log.is_dir() or not os.access(log, os.W_OK)):
        return "it is not a writable file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is read-only"
    return ""


def _writable_ancestor(folder: Path) -> bool:
    for parent in folder.parents:
        if parent.exists():
            return parent.is_dir() and os.access(parent, os.W_OK | os.X_OK)
    return False
