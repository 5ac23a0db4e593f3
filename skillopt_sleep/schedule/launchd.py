"""The launchd form of an entry: a per-user agent plist and the ``launchctl`` calls that load it.

``StartCalendarInterval`` fires on the local wall clock and, like our daemon, runs a night missed
while the Mac slept once on wake. launchd opens ``StandardOutPath`` for appending, so nights
accumulate in one log. ``bootstrap``/``bootout`` on the ``gui/<uid>`` domain are the current
verbs (``load``/``unload`` are deprecated).

The agent runs :mod:`.shell`'s ``/bin/sh`` command, the one cron runs, rather than the engine
itself: a moved engine or project is then a line in the log naming it and the fix. That is also
why the plist sets no ``WorkingDirectory`` (launchd refuses to start a job whose working directory
is gone, and says so only in the system log) and no ``EnvironmentVariables`` (the command sets
them).
"""

from __future__ import annotations

import plistlib
from pathlib import PurePosixPath
from typing import Any

from skillopt_sleep.schedule.entry import Entry
from skillopt_sleep.schedule.shell import shell_command

LABEL_PREFIX = "io.skillopt.sleep."


def label(key: str) -> str:
    return LABEL_PREFIX + key


def plist_path(home: str, key: str) -> str:
    return str(PurePosixPath(home) / "Library" / "LaunchAgents" / f"{label(key)}.plist")


def plist_dict(entry: Entry) -> dict[str, Any]:
    return {
        "Label": label(entry.key),
        "ProgramArguments": ["/bin/sh", "-c", shell_command(entry)],
        "StartCalendarInterval": {"Hour": entry.at.hour, "Minute": entry.at.minute},
        "StandardOutPath": entry.log,
        "StandardErrorPath": entry.log,
        "RunAtLoad": False,
        "ProcessType": "Background",
    }


def plist_bytes(entry: Entry) -> bytes:
    return plistlib.dumps(plist_dict(entry), fmt=plistlib.FMT_XML, sort_keys=True)


def domain(uid: int) -> str:
    return f"gui/{uid}"


def bootstrap_argv(uid: int, plist: str) -> list[str]:
    return ["launchctl", "bootstrap", domain(uid), plist]


def bootout_argv(uid: int, key: str) -> list[str]:
    return ["launchctl", "bootout", f"{domain(uid)}/{label(key)}"]
