"""``schedule_info(project)``: the schedule as ``status`` shows it. Reads only ``schedule.json``
(no subprocess, nothing heavy imported), so ``status`` stays instant."""

from __future__ import annotations

import os
import shlex
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_sleep.schedule.at import next_run, parse_at
from skillopt_sleep.schedule.record import read_record
from skillopt_sleep.schedule.where import ScheduleFiles


def _platform() -> str:
    from skillopt_sleep.schedule.install import KINDS, platform_family

    family = platform_family()
    return f"{family}:{KINDS[family]}"


def schedule_info(
    project: str | os.PathLike[str], *, now: datetime | None = None
) -> dict[str, Any]:
    """``{"installed", "platform", "kind", "at", "next_run" (ISO UTC), "command", "argv", "log",
    "record", "installed_at", "entry"}``. ``installed`` is true when a record exists and the file
    it wrote (launchd plist, Windows script) is still there; a cron line is taken on the record's
    word (reading the crontab would mean a subprocess)."""
    files = ScheduleFiles.for_project(project)
    platform, _, kind = _platform().partition(":")
    error: str | None = None
    try:
        record = read_record(files.record)
    except StorageError as exc:  # status must still answer; the error says what to do
        record, error = None, str(exc)
    if record is None:
        return {
            "installed": False,
            "platform": platform,
            "kind": kind,
            "at": None,
            "next_run": None,
            "command": None,
            "argv": [],
            "log": str(files.log),
            "record": str(files.record),
            "installed_at": None,
            "entry": {},
            **({"error": error} if error else {}),
        }
    artifacts = record.artifacts
    on_disk = [artifacts[k] for k in ("plist", "script") if k in artifacts]
    moment = now or datetime.now(timezone.utc)
    upcoming = next_run(parse_at(record.at), moment)
    return {
        "installed": all(Path(p).is_file() for p in on_disk),
        "platform": record.platform,
        "kind": record.kind,
        "at": record.at,
        "next_run": upcoming.isoformat().replace("+00:00", "Z"),
        "command": shlex.join(record.argv),
        "argv": list(record.argv),
        "log": record.log,
        "record": str(files.record),
        "installed_at": record.installed_at,
        "entry": artifacts,
    }
