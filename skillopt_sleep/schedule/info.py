"""``schedule_info(project)``: the schedule as ``status`` shows it. Reads ``schedule.json``; only
without one does it ask the OS scheduler (:mod:`.probe`: one ``crontab -l`` on Linux), because a
record can be deleted with the state directory while the entry keeps firing. A cron entry is also
looked up in the crontab (one ``crontab -l``) for a ``CRON_TZ`` line above it, which would make
cronie fire it on another clock than the one shown. Nothing heavy is imported, so ``status``
stays instant."""

from __future__ import annotations

import os
import shlex
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.schedule import cron
from skillopt_sleep.schedule.at import DailyTime, next_run, parse_at
from skillopt_sleep.schedule.health import problems, profile_of, reschedule, zone_shifted
from skillopt_sleep.schedule.install import Host, read_crontab
from skillopt_sleep.schedule.probe import Found, find_entry
from skillopt_sleep.schedule.record import read_record
from skillopt_sleep.schedule.runner import ScheduleError
from skillopt_sleep.schedule.where import ScheduleFiles
from skillopt_sleep.schedule.zone import cron_tz_zone


def schedule_info(
    project: str | os.PathLike[str], *, now: datetime | None = None, host: Host | None = None
) -> dict[str, Any]:
    """``{"installed", "recorded", "platform", "kind", "at", "zone", "time", "next_run" (ISO UTC),
    "next_run_local", "command", "argv", "log", "record", "installed_at", "entry", "problems"}``.
    ``at`` is read on the clock of ``zone``, the one the scheduler fires on (cron and launchd:
    the system's, not a ``TZ`` of this shell), ``time`` is both together, ``next_run_local``
    the next run on that clock, and ``zone_note`` says so when this process's clock differs. With a record, ``installed``
    is true when the file it wrote (launchd plist, Windows script) is still there; a cron line is
    taken on the record's word; ``problems`` lists what stops it from running tonight (the engine
    or project gone, a log it cannot write) or at the time shown (a ``CRON_TZ`` above a crontab
    entry), each ``{"detail", "fix"}``. Without one, ``host``'s scheduler (default this machine's) is asked: an entry
    found there is ``installed`` but not ``recorded``, with ``found``, ``note`` and ``hint``."""
    files = ScheduleFiles.for_project(project)
    moment = now or datetime.now(timezone.utc)
    host = host or Host.current()
    try:
        record = read_record(files.record)
    except StorageError as exc:  # status must still answer; the error says what to do
        return {**_unrecorded(files, host, None, moment), "error": str(exc)}
    if record is None:
        return _unrecorded(files, host, find_entry(host, files.key), moment)
    artifacts = record.artifacts
    on_disk = [artifacts[k] for k in ("plist", "script") if k in artifacts]
    return {
        "installed": all(Path(p).is_file() for p in on_disk),
        "recorded": True,
        "platform": record.platform,
        "kind": record.kind,
        "at": record.at,
        **_when(_parsed(record.at), host, record.kind, moment),
        "command": shlex.join(record.argv),
        "argv": list(record.argv),
        "log": record.log,
        "record": str(files.record),
        "installed_at": record.installed_at,
        "entry": artifacts,
        "problems": [
            {"detail": p.detail, "fix": p.fix}
            for p in problems(record.argv, record.project, record.at, record.log)
        ]
        + _time_problems(record.at)
        + _zone_problems(
            host,
            record.kind,
            artifacts.get("cron_block", record.key),
            _parsed(record.at),
            moment,
            f"`{reschedule(record.project, record.at, profile_of(record.argv))}` again",
        ),
    }


def _parsed(at: str) -> DailyTime | None:
    """The recorded time; None when it is damaged (a problem of its own, see below)."""
    try:
        return parse_at(at)
    except UsageError:
        return None


def _when(at: DailyTime | None, host: Host, kind: str, moment: datetime) -> dict[str, Any]:
    """``zone``, ``time``, ``next_run`` and ``next_run_local`` of a daily ``at`` (None for the
    times without one), and ``zone_note`` when this process's clock shows that run otherwise
    (a ``TZ`` exported in the shell: the time it gives is not the one the scheduler reads)."""
    zone, name = host.zone(kind)
    if at is None:
        return {"zone": name, "time": None, "next_run": None, "next_run_local": None}
    upcoming = next_run(at, moment, zone)
    there = upcoming.astimezone(zone)
    here = upcoming.astimezone()
    when: dict[str, Any] = {
        "zone": name,
        "time": f"{at} {name}",
        "next_run": _iso(upcoming),
        "next_run_local": there.isoformat(),
    }
    if here.utcoffset() != there.utcoffset():
        when["zone_note"] = (
            f"{at} is {name} time, the clock {kind} runs on; this shell's clock"
            f"{_tz_label()} shows {here.strftime('%H:%M')} then"
        )
    return when


def _tz_label() -> str:
    tz = os.environ.get("TZ")
    return f" (TZ={tz})" if tz else ""


def _zone_problems(
    host: Host, kind: str, key: str, at: DailyTime | None, moment: datetime, again: str
) -> list[dict[str, str]]:
    """A crontab entry for ``key`` below a ``CRON_TZ`` line of the user's (an older version
    appended it there, or the line was added above it since): cronie fires it on that zone's
    clock. Nothing when this host's crontab cannot be read (status must answer), or when the
    line names the zone shown anyway."""
    if kind != "cron" or host.kind != "cron" or at is None:
        return []
    try:
        value = cron.block_zone(read_crontab(host.runner), key)
    except (ScheduleError, OSError):
        return []
    shown_zone, shown = host.zone(kind)
    if not value or value.removeprefix(":") in (shown, host.localtime):
        return []
    there = cron_tz_zone(value)
    fires = ""
    if there is not None:
        fires = next_run(at, moment, there).astimezone(shown_zone).strftime("%H:%M")
        if fires == str(at):  # another name of the same clock ("UTC" and "Etc/UTC")
            return []
    problem = zone_shifted(value, str(at), shown, fires, again)
    return [{"detail": problem.detail, "fix": problem.fix}]


def _time_problems(at: str) -> list[dict[str, str]]:
    """A record whose time is no HH:MM (edited by hand, damaged) is a problem ``status`` shows;
    it used to end ``status`` with exit 2 and advice about an ``--at`` nobody had given."""
    try:
        parse_at(at)
    except UsageError:
        return [
            {
                "detail": f"the schedule record's time {at!r} is not a time of day (HH:MM)",
                "fix": "run `skillopt-sleep schedule --at HH:MM` again (with the flags you want)",
            }
        ]
    return []


def _unrecorded(
    files: ScheduleFiles, host: Host, found: Found | None, moment: datetime
) -> dict[str, Any]:
    """No record: not scheduled, unless ``found``, an entry the scheduler holds for this
    project anyway."""
    at: DailyTime | None = found.at if found is not None else None
    info: dict[str, Any] = {
        "installed": found is not None,
        "recorded": False,
        "platform": host.platform,
        "kind": host.kind,
        "at": str(at) if at is not None else None,
        **_when(at, host, host.kind, moment),
        "command": None,
        "argv": [],
        "log": str(files.log),
        "record": str(files.record),
        "installed_at": None,
        "entry": {},
        "problems": [],
    }
    if found is not None and at is not None:
        again = f"`skillopt-sleep schedule --at {at}` in the project (with the flags you want)"
        info["problems"] = _zone_problems(host, host.kind, files.key, at, moment, again)
    if found is not None:
        info["found"] = found.where
        info["note"] = f"scheduled (entry found in {found.where}, no record in {files.state_dir})"
        info["hint"] = (
            "`skillopt-sleep unschedule` removes the entry; `skillopt-sleep schedule` (with the "
            "--at and flags you want) records it again, replacing it in place"
        )
    return info


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")
