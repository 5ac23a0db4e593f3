"""Delivering harvested sessions as a JSON array, durably, one session at a time.

A :class:`JsonSink` streams ``[session, session, ...]`` to a file or to standard output as
sessions arrive, so memory stays flat; :meth:`JsonSink.close` returns only once the bytes are on
disk (fsync'd; for a new or regular ``--output`` file, written to a temporary file first and
renamed over the target, so a failed run never leaves half an array behind). Any failure is a
:class:`StorageError`: the caller then leaves the index uncommitted and the next run delivers the
same sessions again. A pipe or terminal cannot be fsync'd; its bytes are flushed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import orjson

from skillopt_core.errors import StorageError

if TYPE_CHECKING:
    from skillopt_sleep.harvest._build import Draft
    from skillopt_sleep.records import Session

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS
# ``_OPTIONS`` less OPT_NON_STR_KEYS: orjson's plain dict path, the same bytes a tenth faster
# where every key is a ``str`` (as in every document ``draft_json`` builds); any other key fails
# it, and the document is rendered again with ``_OPTIONS``
_STR_KEYS = orjson.OPT_INDENT_2 | orjson.OPT_UTC_Z


def session_json(session: Session) -> bytes:
    """One session as indented JSON (UTF-8 whatever the locale; datetimes as ``...Z``)."""
    return orjson.dumps(session, option=_OPTIONS)


def draft_json(made: Draft) -> bytes:
    """``session_json(made.session())``, byte for byte, without building the records: plain
    dicts in the records' field order cost a fraction of frozen dataclasses."""
    # Hot: once per session of ``harvest --json``. Dict literals, not dict(zip(...)), and
    # ``to_utc`` (``fromtimestamp(ts, utc)``) called directly: a third less CPU. Timestamps stay
    # datetimes: text made in Python to spare orjson them costs more than it saves.
    stamp, utc = datetime.fromtimestamp, timezone.utc
    turns = [
        {
            "role": role,
            "text": text,
            "timestamp": None if ts is None else stamp(ts, utc),
            "tool_calls": [
                {
                    "call_id": call_id,
                    "name": name,
                    "input_excerpt": given,
                    "result_excerpt": got,
                    "is_error": is_error,
                    "exit_code": exit_code,
                }
                for call_id, name, given, got, is_error, exit_code in calls
            ]
            if calls  # none when falsy, as ``Draft.session`` reads them; no comprehension run
            else [],
        }
        for role, text, ts, calls in made.steps
    ]
    document = {
        "harness": made.harness,
        "session_id": made.session_id,
        "project": made.project,
        "cwd": made.cwd,
        "started_at": stamp(made.started, utc),
        "ended_at": stamp(made.ended, utc),
        "turns": turns,
        "signals": [
            {"kind": kind, "turn_index": index, "excerpt": excerpt}
            for kind, index, excerpt in made.signals
        ],
        "model": made.model,
        "git_branch": made.git_branch,
        "source_files": made.source_files,
        "forked_from": made.forked_from,
    }
    try:
        return orjson.dumps(document, option=_STR_KEYS)
    except orjson.JSONEncodeError:
        pass  # a key that is not a str, or text orjson refuses: the same error comes again
    return orjson.dumps(document, option=_OPTIONS)


class JsonSink:
    """A JSON array written incrementally to ``target`` (a path, or None for stdout)."""

    def __init__(self, target: Path | None) -> None:
        self._target = target
        self._final: Path | None = None
        self._count = 0
        self._where = "standard output" if target is None else str(target)
        # on a terminal, C1 and bidi controls are written as escapes (2 ns a byte: a program
        # reading a pipe or a file decodes them the same either way, so it is spared the pass,
        # and the import of the escaping tables)
        self._inert: Callable[[bytes], bytes] | None = None
        if target is None and _isatty(sys.stdout):
            from skillopt_sleep._display import displayable_json_bytes

            self._inert = displayable_json_bytes
        try:
            self._handle = self._open(target)
            self._handle.write(b"[")
        except OSError as exc:
            self._fail(exc)

    def _open(self, target: Path | None) -> BinaryIO:
        if target is None:
            return sys.stdout.buffer
        if _is_special(target):  # a device or a pipe: written as it is (no rename possible)
            return open(target, "wb")
        _refuse_file_in_path(target.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        self._final = target
        self._temp = Path(temp)
        return os.fdopen(fd, "wb")

    def write(self, session: Session) -> None:
        self.write_json(session_json(session))

    def write_json(self, document: bytes) -> None:
        """One session already rendered (:func:`session_json` or :func:`draft_json`)."""
        if self._inert is not None:  # a transcript's controls stay inert where they are printed
            document = self._inert(document)
        try:
            self._handle.write(b"\n" if not self._count else b",\n")
            self._handle.write(document)
        except OSError as exc:
            self._fail(exc)
        self._count += 1

    def close(self) -> None:
        """Finish the array and make it durable; raises :class:`StorageError` on any failure."""
        handle = self._handle
        try:
            handle.write(b"\n]\n" if self._count else b"]\n")
            handle.flush()
            _sync(handle)
            if self._final is not None:
                handle.close()
                os.replace(self._temp, self._final)
                _sync_dir(self._final.parent)
            elif handle is not sys.stdout.buffer:
                handle.close()
        except OSError as exc:
            self._fail(exc)

    def abort(self) -> None:
        """Drop a temporary file after a failure elsewhere (the target is left untouched)."""
        if self._final is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            with contextlib.suppress(OSError):
                self._temp.unlink()

    def _fail(self, exc: OSError) -> None:
        self.abort()
        if exc.errno == errno.EPIPE:  # `| head`: the reader left, the disk is fine
            hint = (
                "the reader closed the pipe before the end (as `| head` does); nothing was "
                "recorded in the index: send the output to a file, or to a reader that reads it all"
            )
        else:
            hint = "nothing was recorded in the index; free space or fix the path and run again"
        raise StorageError(
            f"could not write the sessions to {self._where}: {exc.strerror or exc}", hint=hint
        ) from None


def _refuse_file_in_path(folder: Path) -> None:
    """Name the file standing where ``folder`` or one of its parents should be: ``mkdir`` said
    only "File exists" (or "Not a directory" deeper down), which reads like the output file."""
    for part in (folder, *folder.parents):
        if part.exists() or part.is_symlink():
            if not part.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{part} is a file, not a folder")
            return


def _is_special(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _sync(handle: BinaryIO) -> None:
    """fsync a file; a pipe, terminal or device that cannot be synced was flushed, which is
    all it offers."""
    try:
        fd = handle.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):
        return
    if stat.S_ISREG(mode):
        os.fsync(fd)


def _sync_dir(folder: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _isatty(stream: object) -> bool:
    try:
        return bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):  # closed or detached
        return False
