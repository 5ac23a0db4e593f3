"""Write a project's nightly entry to the OS scheduler, and remove exactly what was written.

    record = install_schedule("/path/to/project", "03:17", ["--target", "claude-cli"])
    remove_schedule("/path/to/project")

The entry forms are pure (:mod:`.cron`, :mod:`.launchd`, :mod:`.windows`); this module does the
I/O: it asks the :class:`Host` (platform, ``Runner``, home, uid; all injectable) to run the OS
commands, writes the launchd plist or the Windows script, and records everything in
``schedule.json``. Re-scheduling replaces the entry in place (same cron markers, same plist and
label, ``schtasks /F``); it never adds a second one. The crontab's read-modify-write holds a lock
under the state dir (concurrent ``schedule`` runs would lose each other's blocks) and reads the
crontab back to check the block is there (or gone).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from skillopt_core.rundir import atomic_write_bytes
from skillopt_sleep.paths import PRIVATE_FILE_MODE, private_dir
from skillopt_sleep.schedule import cron, launchd, windows
from skillopt_sleep.schedule.at import DailyTime, parse_at
from skillopt_sleep.schedule.entry import Entry, build_entry
from skillopt_sleep.schedule.record import (
    ScheduleRecord,
    delete_record,
    read_record,
    storage_error,
    write_record,
)
from skillopt_sleep.schedule.runner import (
    ProgramMissing,
    Runner,
    ScheduleError,
    checked,
    run_command,
)
from skillopt_sleep.schedule.where import ScheduleFiles
from skillopt_sleep.schedule.zone import LOCALTIME, scheduler_zone

KINDS: Mapping[str, str] = {"linux": "cron", "darwin": "launchd", "win32": "schtasks"}
LOCK_TIMEOUT = 60.0  # seconds to wait for another schedule/unschedule updating the crontab
LOCK_POLL = 0.05


def platform_family(name: str | None = None) -> str:
    """``sys.platform`` -> linux | darwin | win32 (the BSDs and other Unixes use cron)."""
    name = name or sys.platform
    if name.startswith(("win", "cygwin", "msys")):
        return "win32"
    return "darwin" if name == "darwin" else "linux"


@dataclass(frozen=True)
class Host:
    """The machine being scheduled on. Tests build one with a fake runner and a temp home (and
    a ``localtime`` file for the system zone cron and launchd follow)."""

    platform: str
    runner: Runner
    home: str
    uid: int
    localtime: str = LOCALTIME

    @property
    def kind(self) -> str:
        return KINDS[self.platform]

    def zone(self, kind: str | None = None) -> tuple[tzinfo, str]:
        """The zone (and its name) the ``kind`` scheduler (default this host's) fires on."""
        return scheduler_zone(kind or self.kind, self.localtime)

    @classmethod
    def current(cls, runner: Runner | None = None) -> Host:
        uid = os.getuid() if hasattr(os, "getuid") else 0
        return cls(platform_family(), runner or run_command, str(Path.home()), uid)


@dataclass(frozen=True)
class Removal:
    """What ``remove_schedule`` took away (``removed`` is empty when nothing was installed)."""

    kind: str
    removed: tuple[str, ...]
    record: ScheduleRecord | None


def install_schedule(
    project: str | os.PathLike[str],
    at: DailyTime | str,
    profile: Sequence[str] = (),
    *,
    host: Host | None = None,
    interpreter: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> ScheduleRecord:
    """Install (or replace) the nightly entry for ``project``; return what was recorded.

    ``profile``: the ``run`` flags to save (e.g. ``["--target", "claude-cli"]``)."""
    host = host or Host.current()
    when = parse_at(at) if isinstance(at, str) else at
    files = ScheduleFiles.for_project(project)
    entry = build_entry(
        project, when, profile, files=files, interpreter=interpreter, environ=environ
    )
    previous = read_record(files.record)
    if previous is not None and previous.kind != host.kind:
        _remove(previous.kind, previous.key, previous.artifacts, host)
    try:  # before the OS entry: a night that cannot write its log fails unseen
        private_dir(files.logs_dir)
    except OSError as exc:
        raise storage_error(
            f"create the log folder {files.logs_dir}", files.logs_dir, exc
        ) from None
    written = _INSTALL[host.kind](entry, host, files)
    record = ScheduleRecord(
        platform=host.platform,
        kind=host.kind,
        key=entry.key,
        project=entry.project,
        at=str(entry.at),
        argv=entry.argv,
        environment=entry.environment,
        log=entry.log,
        installed_at=(now or datetime.now(timezone.utc)).isoformat(),
        written=written,
    )
    write_record(files.record, record)
    return record


def preview_schedule(
    project: str | os.PathLike[str],
    at: DailyTime | str,
    profile: Sequence[str] = (),
    *,
    host: Host | None = None,
    interpreter: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """What :func:`install_schedule` would write on ``host``, as text; nothing is changed."""
    host = host or Host.current()
    when = parse_at(at) if isinstance(at, str) else at
    files = ScheduleFiles.for_project(project)
    entry = build_entry(
        project, when, profile, files=files, interpreter=interpreter, environ=environ
    )
    if host.kind == "launchd":
        plist = launchd.plist_path(host.home, entry.key)
        return (
            f"# {plist}\n{launchd.plist_bytes(entry).decode('utf-8')}"
            f"# then: {shlex.join(launchd.bootstrap_argv(host.uid, plist))}\n"
        )
    if host.kind == "schtasks":
        script = str(files.windows_script)
        create = subprocess.list2cmdline(windows.create_argv(entry, script))
        return (
            f"rem {script}\n{windows.script_text(entry).replace(chr(13), '')}rem then: {create}\n"
        )
    return cron.cron_block(entry)


def remove_schedule(project: str | os.PathLike[str], *, host: Host | None = None) -> Removal:
    """Remove what :func:`install_schedule` wrote for ``project`` (from its record; without one,
    the entry this host would have written under the project's key) and the record itself."""
    host = host or Host.current()
    files = ScheduleFiles.for_project(project)
    record = read_record(files.record)
    kind = record.kind if record is not None else host.kind
    key = record.key if record is not None else files.key
    artifacts = record.artifacts if record is not None else _default_artifacts(host, files)
    try:
        removed = _remove(kind, key, artifacts, host)
    except ProgramMissing:
        if record is not None:  # it was scheduled with it: the user should know it is gone
            raise
        removed = ()  # nothing recorded and no scheduler program: nothing of ours to remove
    delete_record(files.record)
    return Removal(kind, removed, record)


def _default_artifacts(host: Host, files: ScheduleFiles) -> dict[str, str]:
    if host.kind == "launchd":
        return {
            "plist": launchd.plist_path(host.home, files.key),
            "label": launchd.label(files.key),
        }
    if host.kind == "schtasks":
        return {"task": windows.task_name(files.key), "script": str(files.windows_script)}
    return {"cron_block": files.key}


# --- cron -------------------------------------------------------------------------------------


def read_crontab(runner: Runner) -> str:
    """The user's crontab text; "no crontab for <user>" is an empty one."""
    done = runner(["crontab", "-l"])
    if done.returncode == 0:
        return done.stdout
    if "no crontab" in (done.stderr + done.stdout).lower():
        return ""
    raise ScheduleError(f"crontab -l failed: {(done.stderr or done.stdout).strip()}")


@contextmanager
def crontab_lock(timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold our crontab lock (``<state>/schedule/.lock``) around a read-modify-write of the
    crontab, waiting up to ``timeout`` seconds for another ``schedule``/``unschedule`` of ours:
    two at once would each write back the crontab they read and lose the other's block."""
    from skillopt_core.lock import exclusive_waiting
    from skillopt_sleep.paths import state_dir

    with exclusive_waiting(
        state_dir() / "schedule", "schedule (crontab update)", timeout, LOCK_POLL
    ):
        yield


def _write_crontab(host: Host, text: str, key: str, present: bool) -> None:
    """``crontab -`` with ``text``, then read it back: our block must be there (or gone)."""
    checked(host.runner, ["crontab", "-"], text)
    if cron.has_block(read_crontab(host.runner), key) != present:
        raise ScheduleError(
            f"the crontab was changed by someone else while it was being updated: the "
            f"skillopt-sleep block {key} is {'missing' if present else 'still there'}",
            hint="check `crontab -l`, then run the same `skillopt-sleep "
            f"{'schedule' if present else 'unschedule'}` command again",
        )


def _install_cron(entry: Entry, host: Host, files: ScheduleFiles) -> tuple[tuple[str, str], ...]:
    with crontab_lock():
        current = read_crontab(host.runner)
        updated = cron.with_block(current, entry.key, cron.cron_block(entry))
        if updated != current:
            _write_crontab(host, updated, entry.key, present=True)
    return (("cron_block", entry.key),)


def _remove_cron(key: str, artifacts: Mapping[str, str], host: Host) -> tuple[str, ...]:
    marker = artifacts.get("cron_block", key)
    with crontab_lock():
        current = read_crontab(host.runner)
        updated = cron.without_block(current, marker)
        if updated == current:
            return ()
        _write_crontab(host, updated, marker, present=False)
    return (f"crontab block {marker}",)


# --- launchd ----------------------------------------------------------------------------------


def _install_launchd(entry: Entry, host: Host, files: ScheduleFiles) -> tuple[tuple[str, str], ...]:
    plist = Path(launchd.plist_path(host.home, entry.key))
    plist.parent.mkdir(parents=True, exist_ok=True)
    # launchd refuses agents that group or others may write; 0644 is what it expects.
    atomic_write_bytes(plist, launchd.plist_bytes(entry), mode=0o644)
    host.runner(launchd.bootout_argv(host.uid, entry.key))  # replace a loaded one; may not be
    checked(host.runner, launchd.bootstrap_argv(host.uid, str(plist)))
    return (("plist", str(plist)), ("label", launchd.label(entry.key)))


def _remove_launchd(key: str, artifacts: Mapping[str, str], host: Host) -> tuple[str, ...]:
    removed: list[str] = []
    done = host.runner(launchd.bootout_argv(host.uid, key))
    if done.returncode == 0:
        removed.append(f"launchd agent {artifacts.get('label', launchd.label(key))}")
    plist = Path(artifacts.get("plist", launchd.plist_path(host.home, key)))
    if plist.is_file():
        plist.unlink()
        removed.append(str(plist))
    return tuple(removed)


# --- Windows Task Scheduler -------------------------------------------------------------------


def _install_schtasks(
    entry: Entry, host: Host, files: ScheduleFiles
) -> tuple[tuple[str, str], ...]:
    script = files.windows_script
    text = windows.script_text(entry)
    atomic_write_bytes(script, text.encode("utf-8"), mode=PRIVATE_FILE_MODE)
    checked(host.runner, windows.create_argv(entry, str(script)))
    return (("task", windows.task_name(entry.key)), ("script", str(script)))


def _remove_schtasks(key: str, artifacts: Mapping[str, str], host: Host) -> tuple[str, ...]:
    removed: list[str] = []
    done = host.runner(windows.delete_argv(key))
    if done.returncode == 0:
        removed.append(f"task {artifacts.get('task', windows.task_name(key))}")
    elif "cannot find" not in (done.stderr + done.stdout).lower():
        # keep the record (and the script) so a second `unschedule` can retry
        raise ScheduleError(f"schtasks /Delete failed: {(done.stderr or done.stdout).strip()}")
    script = artifacts.get("script")
    if script and Path(script).is_file():
        Path(script).unlink()
        removed.append(script)
    return tuple(removed)


_INSTALL: Mapping[str, Callable[[Entry, Host, ScheduleFiles], tuple[tuple[str, str], ...]]] = {
    "cron": _install_cron,
    "launchd": _install_launchd,
    "schtasks": _install_schtasks,
}
_REMOVE: Mapping[str, Callable[[str, Mapping[str, str], Host], tuple[str, ...]]] = {
    "cron": _remove_cron,
    "launchd": _remove_launchd,
    "schtasks": _remove_schtasks,
}


def _remove(kind: str, key: str, artifacts: Mapping[str, str], host: Host) -> tuple[str, ...]:
    return _REMOVE[kind](key, artifacts, host)
