"""The state directory's append-only files (the journal, the history): one JSON object a line,
appended and synced whole; a torn last line (a killed write) is cut or ignored."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_sleep.engine.storage import storage_error
from skillopt_sleep.paths import PRIVATE_FILE_MODE as PRIVATE_FILE


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line and sync it (the journal and the history are append-only). A torn
    last line (a killed write) is cut first, so the new record starts on a line of its own. A
    write or sync that fails takes the line back out: a caller told that its record was not
    written must not find it there later (a journal "begin" the next command would act on)."""
    line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
        try:
            end = _cut_torn_line(fd)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, end)
                raise
        finally:
            os.close(fd)
    except OSError as exc:
        raise storage_error("append to", path, exc) from None


def _cut_torn_line(fd: int) -> int:
    """Cut a torn last line; returns the size of the complete lines."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = os.pread(fd, size, 0).rfind(b"\n") + 1
    os.ftruncate(fd, end)
    return end


def read_lines(path: Path, *, skip_bad: bool = False) -> list[dict[str, Any]]:
    """Records of an append-only file. A torn last line (a killed write, so no newline) is
    ignored; any complete line that is not a UTF-8 JSON object, or a path that is no file, is
    damage: a StorageError naming the line and saying to move the file aside. ``skip_bad``
    skips such lines instead, for files other processes append to (a killed hook's torn line
    may be followed by the next hook's) whose records are only counted."""
    damaged = f"move {path} aside and run again"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except IsADirectoryError as exc:
        raise StorageError(f"{path} is damaged: it is a directory", hint=damaged) from exc
    except OSError as exc:
        raise StorageError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the file's permissions"
        ) from exc
    out: list[dict[str, Any]] = []
    complete = data[: data.rfind(b"\n") + 1]
    for number, line in enumerate(complete.splitlines(), 1):
        if not line.strip():
            continue
        record = _record(line)
        if record is None and not skip_bad:
            raise StorageError(f"{path} is damaged at line {number}", hint=damaged)
        if record is not None:
            out.append(record)
    return out


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line.decode("utf-8"))
    except ValueError:  # JSONDecodeError, UnicodeDecodeError
        return None
    return record if isinstance(record, dict) else None
