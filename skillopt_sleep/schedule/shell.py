"""The ``/bin/sh`` command a POSIX scheduler (cron, launchd) runs for an entry.

Each word is shell-quoted and the environment is set inline on the night's command. It sets
``umask 077`` first (the log the redirection creates is private, like every state file) and
creates the logs folder, so a deleted state directory does not stop the night before Python
starts. Everything after that writes to the log, so a moved engine or project is a line there
naming it and the fix (:mod:`.health`), not a bare ``not found``, a ``cd`` error mailed to nobody
or, under launchd, a job that never starts because its working directory is gone.
"""

from __future__ import annotations

import posixpath
import shlex

from skillopt_sleep.schedule import health
from skillopt_sleep.schedule.entry import Entry


def shell_command(entry: Entry) -> str:
    """Private umask, make the logs folder, say so in the log and stop if the engine or the
    project is gone, cd to the project, stop likewise if the engine cannot import us there (the
    night runs ``-m skillopt_sleep`` from the project), set the environment, run the night
    appending its output to the log."""
    env = " ".join(f"{name}={shlex.quote(value)}" for name, value in entry.environment)
    argv = " ".join(shlex.quote(arg) for arg in entry.argv)
    logs = shlex.quote(posixpath.dirname(entry.log) or ".")
    python, project = shlex.quote(entry.argv[0]), shlex.quote(entry.project)
    where = (entry.argv[0], entry.project, str(entry.at), health.profile_of(entry.argv))
    log = shlex.quote(entry.log)
    return (
        f"umask 077 && mkdir -p {logs} && {{ "
        f"[ -x {python} ] || {_stop(health.engine_gone(*where), health.ENGINE_GONE_EXIT)}; "
        f"[ -d {project} ] || "
        f"{_stop(health.project_gone(entry.project), health.PROJECT_GONE_EXIT)}; "
        f"cd {project} || exit {health.PROJECT_GONE_EXIT}; "
        f"{python} -c {shlex.quote(health.FINDS_US)} 2>/dev/null || "
        f"{_stop(health.engine_without_us(*where), health.ENGINE_GONE_EXIT)}; "
        f"}} >> {log} 2>&1 && {env} {argv} >> {log} 2>&1"
    )


def _stop(problem: health.Problem, code: int) -> str:
    """A shell group appending ``problem``'s line, stamped with the UTC time, to the output and
    exiting with ``code``."""
    stamp = '"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'
    return f"{{ printf '%s %s\\n' {stamp} {shlex.quote(health.line(problem))}; exit {code}; }}"
