"""``schedule.json``: what ``schedule`` wrote to the OS, so ``unschedule`` removes exactly that and
``status`` can show it without asking the OS."""

from __future__ import annotations

import errno
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_core.rundir import atomic_write_bytes
from skillopt_sleep.paths import PRIVATE_FILE_MODE, private_dir

VERSION = 1


@dataclass(frozen=True)
class ScheduleRecord:
    """One installed schedule. ``written`` names each artifact: ``cron_block`` (the marker key),
    ``plist`` and ``label`` (launchd), ``task`` and ``script`` (Windows)."""

    platform: str  # linux | darwin | win32 (sys.platform family)
    kind: str  # cron | launchd | schtasks
    key: str
    project: str
    at: str  # HH:MM local time
    argv: tuple[str, ...]
    environment: tuple[tuple[str, str], ...]
    log: str
    installed_at: str  # ISO-8601 UTC
    written: tuple[tuple[str, str], ...] = field(default=())

    @property
    def artifacts(self) -> dict[str, str]:
        return dict(self.written)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "platform": self.platform,
            "kind": self.kind,
            "key": self.key,
            "project": self.project,
            "at": self.at,
            "argv": list(self.argv),
            "environment": dict(self.environment),
            "log": self.log,
            "installed_at": self.installed_at,
            "written": dict(self.written),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScheduleRecord:
        return cls(
            platform=str(data["platform"]),
            kind=str(data["kind"]),
            key=str(data["key"]),
            project=str(data["project"]),
            at=str(data["at"]),
            argv=tuple(str(a) for a in data["argv"]),
            environment=tuple((str(k), str(v)) for k, v in dict(data["environment"]).items()),
            log=str(data["log"]),
            installed_at=str(data["installed_at"]),
            written=tuple((str(k), str(v)) for k, v in dict(data.get("written", {})).items()),
        )


def read_record(path: Path) -> ScheduleRecord | None:
    """The record at ``path``; None when there is none; a damaged one is a StorageError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ScheduleRecord.from_json(data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StorageError(
            f"the schedule record {path} is unreadable or damaged ({exc})",
            hint=f"remove the OS entry by hand, then delete {path}",
        ) from None


def write_record(path: Path, record: ScheduleRecord) -> None:
    """Write ``record``; an OS error is a :func:`storage_error` (the entry is already written:
    scheduling again replaces it in place)."""
    payload = json.dumps(record.to_json(), indent=2, ensure_ascii=False) + "\n"
    try:
        private_dir(path.parent)
        atomic_write_bytes(path, payload.encode("utf-8"), mode=PRIVATE_FILE_MODE)
    except OSError as exc:
        raise storage_error(f"write the schedule record {path}", path.parent, exc) from None


def storage_error(doing: str, folder: Path, exc: OSError) -> StorageError:
    """A state ``folder`` that ``schedule`` cannot write, as an error naming it and the fix."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        fix = "free some disk space"
    elif exc.errno in (errno.ENOTDIR, errno.EEXIST):
        fix = f"move aside the file in the way of the folder {folder}"
    else:
        fix = f"make {folder} writable, or set SKILLOPT_SLEEP_HOME to a folder you can write"
    return StorageError(
        f"cannot {doing}: {exc.strerror or exc}",
        hint=f"{fix}, then run the same `skillopt-sleep schedule` again",
    )


def delete_record(path: Path) -> None:
    path.unlink(missing_ok=True)
