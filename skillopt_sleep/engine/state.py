"""The one owner of a project's state directory.

    <state>/projects/<project-key>/
        .lock                 held for the life of a night (one night per project at a time)
        project.json          which project this directory belongs to
        harvest-index.sqlite3 the harvest index (see skillopt_sleep.harvest)
        mine-archive.sqlite3  the miner's archive (see skillopt_sleep.mine)
        optimizer.json        what carries across nights: rejected edits, meta notes, nights closed
        nights/<id>/          one night's run directories (core trainer state) and report.json,
                              written last (a folder without one: a night that did not finish)
        history.jsonl         one summary line per finished night (what `status` reads;
                              the last year's, see engine.finish.trim_history)
        staging/<id>/         staged proposals (files, diff, manifest, reports)
        backups/<id>/         live files as they were before an adopt (links into by-sha256/)
        backups/by-sha256/    each distinct backed-up content stored once
        jobs/<id>/            nights started through MCP: job.json, request, log, lock
        journal.jsonl         every adopt / reject / rollback
        schedule.json         what `schedule` wrote to the OS, so `unschedule` removes exactly it
        logs/                 scheduled nights' output

Everything here is created private to the user (0700 directories, 0600 files). A write that
fails (a read-only mount or sandbox, permissions, a full disk) is a StorageError naming the path
and the OS reason, its hint chosen by the errno (:mod:`.storage`); the append-only files are
read and written by :mod:`.jsonlines`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skillopt_core import rundir
from skillopt_core.errors import StorageError
from skillopt_core.lock import Holder, exclusive, held_by
from skillopt_core.rundir import atomic_write_bytes
from skillopt_sleep.engine.jsonlines import append_line, read_lines
from skillopt_sleep.engine.records import NIGHT_COMMAND
from skillopt_sleep.engine.storage import (
    make_private_dir,
    make_private_file,
    storage_error,
    storage_hint,
)
from skillopt_sleep.paths import PRIVATE_FILE_MODE as PRIVATE_FILE
from skillopt_sleep.paths import project_state_dir

__all__ = [  # the state directory's one front: the helpers of .storage and .jsonlines too
    "ARCHIVE_FILE",
    "INDEX_FILE",
    "LOG_FILE",
    "UNTOUCHED",
    "ProjectState",
    "append_line",
    "make_private_dir",
    "make_private_file",
    "read_json",
    "read_lines",
    "storage_error",
    "storage_hint",
    "write_json",
    "write_private",
]

INDEX_FILE = "harvest-index.sqlite3"  # = harvest._index.INDEX_NAME (a test keeps them equal)
ARCHIVE_FILE = "mine-archive.sqlite3"  # = mine.archive.ARCHIVE_NAME; named here so that
# `status` need not import the miner (numpy)
LOG_FILE = "night.log"  # = schedule.where.LOG_NAME (a test keeps them equal)
LOG_MAX_BYTES = 2 * 1024 * 1024
LOG_GENERATIONS = 3


UNTOUCHED = "live files are untouched"  # what a failed state write says by default


def write_private(path: Path, data: bytes | str, *, also: str = UNTOUCHED) -> None:
    """Atomic, private write of one state file; a full disk is a StorageError, never half a file.
    ``also`` ends its hint: what the failure left as it was (a caller that changed live files
    before this write says what is true instead)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        atomic_write_bytes(path, payload, mode=PRIVATE_FILE, private_dirs=True)
    except OSError as exc:
        # atomic_write_bytes already wraps the OS error (with --out-root advice for training
        # runs): say it once, with the engine's advice
        cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
        raise storage_error("write", path, cause, also=also) from None


def write_json(path: Path, data: Any, *, also: str = UNTOUCHED) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    write_private(path, text, also=also)


def read_json(path: Path, default: Any = None, *, expect: type = dict) -> Any:
    """A state file's JSON value (``default`` when missing). Every state file holds one JSON
    object, so anything else, like undecodable text, is damage: a StorageError that says to move
    the file aside."""
    return rundir.read_json(path, default, expect=expect)


def _private_copy(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``, which is private from its creation (a copy made with the
    umask's mode and narrowed after would be readable by others in between)."""
    import shutil

    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with open(fd, "wb") as out, open(source, "rb") as src:
        if hasattr(os, "fchmod"):  # an existing target keeps its mode otherwise
            os.fchmod(out.fileno(), PRIVATE_FILE)
        shutil.copyfileobj(src, out)


def _finished(night: Path) -> bool:
    """Whether the night in this folder finished: its report is the last thing it writes there."""
    return (night / "report.json").is_file()


# what an atomic write (rundir.atomic_write_bytes) writes first: ``.<name>.`` and mkstemp's part
_TEMP_FILE = re.compile(r"\..+\.[a-z0-9_]{8}")
# the state files written only under the night lock, beside which a kill can leave one (the
# history is appended to, and rewritten whole when it is trimmed)
_LOCKED_FILES = ("optimizer.json", "project.json", "history.jsonl")


def _remove(folders: list[Path]) -> list[Path]:
    """Remove ``folders`` as far as possible: tidying up never fails a night."""
    import shutil

    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return folders


class ProjectState:
    """Paths and locking for one project's state; created lazily, read without side effects."""

    def __init__(self, project: str | os.PathLike[str], root: Path | None = None) -> None:
        self.project = Path(project).expanduser().resolve()
        self.root = Path(root) if root is not None else project_state_dir(self.project)

    def ensure(self) -> ProjectState:
        make_private_dir(self.root)
        for database in (self.index_path, self.archive_path):  # SQLite would use the umask
            make_private_file(database)
        marker = self.root / "project.json"
        recorded = read_json(marker)
        if recorded is None:
            write_json(marker, {"project": str(self.project)})
        elif recorded.get("project") != str(self.project):
            raise StorageError(
                f"{self.root} belongs to the project {recorded.get('project')}, not {self.project}",
                hint="use a different --state-dir for each project",
            )
        return self

    @property
    def index_path(self) -> Path:
        return self.root / INDEX_FILE

    @property
    def archive_path(self) -> Path:
        return self.root / ARCHIVE_FILE

    @property
    def optimizer_path(self) -> Path:
        return self.root / "optimizer.json"

    @property
    def history_path(self) -> Path:
        return self.root / "history.jsonl"

    @property
    def journal_path(self) -> Path:
        return self.root / "journal.jsonl"

    @property
    def schedule_path(self) -> Path:
        return self.root / "schedule.json"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    def night_dir(self, night_id: str) -> Path:
        return self.root / "nights" / night_id

    def proposal_dir(self, night_id: str) -> Path:
        if not night_id or any(c in night_id for c in "/\\") or night_id in (".", ".."):
            from skillopt_core.errors import UsageError

            raise UsageError(
                f"{night_id!r} is not a proposal id (a night id such as 20261123-031700)"
            )
        return self.root / "staging" / night_id

    def backup_dir(self, night_id: str) -> Path:
        return self.root / "backups" / night_id

    def prune_nights(self, keep: int = 30) -> list[Path]:
        """Remove the run directories of all but the ``keep`` most recent finished nights (their
        reports stay in history.jsonl and in the staged proposals); returns what was removed.
        Unfinished folders are not counted, so they never push a finished night out (a night's
        start removes them: :meth:`remove_unfinished_nights`)."""
        if keep <= 0:
            return []
        return _remove([p for p in self._night_dirs() if _finished(p)][:-keep])

    def remove_unfinished_nights(self, current: str) -> list[Path]:
        """Remove the folders of earlier nights that wrote no report: what a killed, stopped or
        failed night, or a dry run, left (working files nothing reads: the history, proposals
        and `status` read only reports). Never ``current``'s. Call it holding the night lock: a
        night writes its folder only while it holds the lock, so nobody is writing any of these.
        Returns what was removed."""
        return _remove([p for p in self._night_dirs() if p.name != current and not _finished(p)])

    def remove_temp_files(self) -> list[Path]:
        """Remove the temp files of atomic writes killed half way (``.<name>.XXXXXXXX``) beside
        the files written only under the night lock: the carried optimizer state, the project
        marker, the proposals' manifests and the adopts' backups (jobs and logs have writers
        of their own). Call it holding the night lock; tidying up never fails. Returns them."""
        found = [p for name in _LOCKED_FILES for p in self.root.glob(f".{name}.*")]
        found += (self.root / "staging").glob("*/.*")
        found += (self.root / "backups").rglob(".*")
        removed = []
        for path in found:
            if _TEMP_FILE.fullmatch(path.name) and path.is_file() and not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(path)
        return removed

    def _night_dirs(self) -> list[Path]:
        nights = self.root / "nights"
        return sorted(p for p in nights.iterdir() if p.is_dir()) if nights.is_dir() else []

    def rotate_night_log(self, max_bytes: int = LOG_MAX_BYTES, keep: int = LOG_GENERATIONS) -> bool:
        """Start a fresh ``logs/night.log`` once it outgrows ``max_bytes``, keeping ``keep`` old
        generations (``night.log.1`` newest). Copy-then-truncate, because the scheduler's shell
        holds the log open for appending (``>>``; launchd likewise) while this night writes to it:
        a rename would leave tonight's output in the old file. Returns whether it rotated."""
        log = self.logs_dir / LOG_FILE
        try:
            if not log.is_file() or log.stat().st_size <= max_bytes:
                return False
            for generation in range(keep - 1, 0, -1):
                older = log.with_name(f"{LOG_FILE}.{generation}")
                if older.exists():
                    os.replace(older, log.with_name(f"{LOG_FILE}.{generation + 1}"))
            _private_copy(log, log.with_name(f"{LOG_FILE}.1"))
            with open(log, "r+b") as handle:
                handle.truncate(0)
        except OSError as exc:
            raise StorageError(
                f"cannot rotate {log}: {exc.strerror or exc}",
                hint="free some disk space or remove old logs/night.log.* files",
            ) from None
        return True

    def proposals(self) -> list[Path]:
        staging = self.root / "staging"
        if not staging.is_dir():
            return []
        return sorted(p for p in staging.iterdir() if (p / "manifest.json").is_file())

    def staged_proposal(self, proposal: str) -> Path:
        """The staged proposal named ``proposal`` (an explicit id: None means "the latest" to the
        callers, never ""). The id is only compared with the staged ones, never opened as a path,
        so an id too long for a file name is "no staged proposal" like any other unknown one."""
        from skillopt_core.errors import UsageError
        from skillopt_sleep._display import displayable

        if not proposal:
            raise UsageError(
                "empty proposal id",
                hint="omit the id for the latest proposal, or pass one `skillopt-sleep status` lists",
            )
        self.proposal_dir(proposal)  # an id that names a path says so
        for directory in self.proposals():
            if directory.name == proposal:
                return directory
        shown = repr(proposal[:60]) + (
            f"... ({len(proposal)} characters)" if len(proposal) > 60 else ""
        )
        raise UsageError(
            f"no staged proposal {displayable(shown)}",
            hint="list them with `skillopt-sleep status`",
        )

    @contextmanager
    def night_lock(self, what: str = NIGHT_COMMAND) -> Iterator[None]:
        """Exclusive for one night per project; a second one fails at once (BusyError, exit 5)."""
        self.ensure()
        with exclusive(self.root, what):
            yield

    def running(self) -> str | None:
        """The pid of what holds the project's lock now (a night, an adopt...), or None."""
        held = self.lock_holder()
        return held.pid if held else None

    def lock_holder(self) -> Holder | None:
        """What holds the project's lock now (its pid and command), or None."""
        return held_by(self.root) if self.root.is_dir() else None
