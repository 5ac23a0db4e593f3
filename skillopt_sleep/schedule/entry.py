"""What a scheduled night runs, independent of the OS scheduler that will run it.

An :class:`Entry` is plain data (strings, so a Windows entry can be built and checked on Linux):
the absolute interpreter, ``-m skillopt_sleep run --project <abs project>`` plus the saved
profile, the environment the run needs (the PATH captured when scheduling, because cron and
launchd start jobs with a minimal PATH on which ``claude`` / ``codex`` / ``copilot`` are missing;
the state dir and user config file resolved when scheduling, because they start it without the
user's ``XDG_*`` variables),
the working directory and the log file the output is appended to.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.where import ScheduleFiles

# Besides PATH, the variables that decide *which* state, config and transcripts a night sees
# (the first two always written, resolved). Anything else (API keys above all) stays out of
# crontabs and plists.
CAPTURED_ENV: tuple[str, ...] = (
    "PATH",
    "SKILLOPT_SLEEP_HOME",
    "SKILLOPT_SLEEP_CONFIG",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
)


@dataclass(frozen=True)
class Entry:
    """One project's nightly job, ready to be rendered as a cron line, a plist or a task."""

    key: str  # the project's state key; names the cron markers, the launchd label, the task
    project: str
    at: DailyTime
    argv: tuple[str, ...]  # argv[0] is the absolute interpreter
    environment: tuple[tuple[str, str], ...]
    log: str
    state_dir: str

    @property
    def env(self) -> dict[str, str]:
        return dict(self.environment)


def run_argv(interpreter: str, project: str, profile: Sequence[str]) -> tuple[str, ...]:
    return (interpreter, "-m", "skillopt_sleep", "run", "--project", project, *profile)


def captured_environment(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """PATH (always, falling back to the OS default), the state dir and user config file as
    resolved now (always: cron and launchd set no ``XDG_*`` variables, so a night left to resolve
    them would read another config and write another state dir than ``schedule`` checked and
    ``status`` shows), and the harness locations if set."""
    from skillopt_sleep.engine.config import user_config_path
    from skillopt_sleep.paths import state_dir

    def absolute(value: str | os.PathLike[str]) -> str:
        return os.path.abspath(os.path.expanduser(value))

    env = {
        "PATH": environ.get("PATH") or os.defpath,
        "SKILLOPT_SLEEP_HOME": absolute(environ.get("SKILLOPT_SLEEP_HOME") or state_dir()),
        "SKILLOPT_SLEEP_CONFIG": absolute(
            environ.get("SKILLOPT_SLEEP_CONFIG") or user_config_path()
        ),
    }
    env.update({name: environ[name] for name in CAPTURED_ENV[3:] if environ.get(name)})
    return tuple(env.items())


def build_entry(
    project: str | os.PathLike[str],
    at: DailyTime,
    profile: Sequence[str] = (),
    *,
    files: ScheduleFiles | None = None,
    interpreter: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Entry:
    """The entry for ``project``: every path absolute, every argument free of line breaks (a line
    break would end a cron line or a batch-file line early and run the rest as a command)."""
    root = str(Path(project).expanduser().resolve())
    where = files or ScheduleFiles.for_project(root)
    python = os.path.abspath(interpreter or sys.executable)  # not resolve(): keep a venv's link
    argv = run_argv(python, root, tuple(profile))
    env = captured_environment(os.environ if environ is None else environ)
    for text in (*argv, *(v for _, v in env), str(where.log)):
        if "\n" in text or "\r" in text or "\0" in text:
            raise UsageError(f"cannot schedule an argument with a line break: {text!r}")
    return Entry(
        key=where.key,
        project=root,
        at=at,
        argv=argv,
        environment=env,
        log=str(where.log),
        state_dir=str(where.state_dir),
    )
