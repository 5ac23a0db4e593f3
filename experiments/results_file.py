"""The sweep's ``results.jsonl``: one run per line, appended whole, trusted only when whole.

A row is appended with a single ``write`` and cut back off if that write fails (a full disk), so
a line is all there or absent. A reader still meets damage a crash of the machine or an older
version can leave: a line that does not parse, lacks a field or whose key does not match its
fields is dropped (the sweep runs that job again), and the file is rewritten without it before
anything is appended, so a new row never lands after half a line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments._cli import write_whole
from skillopt_core.errors import StorageError

Row = dict[str, Any]

FIELDS = (
    "key",
    "persona",
    "ablation",
    "seed",
    "nights",
    "baseline",
    "per_night",
    "final",
    "delta",
    "ci_low",
    "ci_high",
    "accepted",
    "rejected",
    "harmful_proposed",
    "harmful_rejected",
    "harmful_landed",
    "proof_holds",
    "calls",
    "tokens",
)


def _whole(line: str) -> Row | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None
    if not isinstance(row, dict) or any(name not in row for name in FIELDS):
        return None
    key = f"{row['persona']}|{row['ablation']}|{row['seed']}|{row['nights']}"
    return row if row["key"] == key else None


@dataclass(frozen=True)
class Stored:
    rows: dict[str, Row]  # whole rows by key, the last of a key winning
    dropped: int  # lines that were not whole
    tidy: bool  # a row can be appended as the file is (nothing dropped, ends with a newline)


def read_rows(path: Path) -> Stored:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")  # a torn line just won't parse
    except FileNotFoundError:
        return Stored({}, 0, True)
    except OSError as exc:
        raise StorageError(
            f"cannot read {path}: {exc}", hint="move it aside to start the sweep afresh"
        ) from exc
    rows: dict[str, Row] = {}
    broken = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        row = _whole(line)
        if row is None:
            broken += 1
        else:
            rows[row["key"]] = row
    return Stored(rows, broken, not broken and (not text or text.endswith("\n")))


def rewrite(path: Path, rows: Iterable[Row]) -> None:
    """Replace the file with ``rows`` only (dropping whatever was not whole)."""
    write_whole(path, "".join(json.dumps(r) + "\n" for r in rows))


def append_row(path: Path, row: Row) -> None:
    """Append one row as one line, or leave the file as it was."""
    data = (json.dumps(row) + "\n").encode("utf-8")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    try:
        size = os.fstat(fd).st_size
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(28, "short write (disk full?)")
        except OSError as exc:
            os.ftruncate(fd, size)
            raise _unwritable(path, exc) from exc
    finally:
        os.close(fd)


def _unwritable(path: Path, exc: OSError) -> StorageError:
    return StorageError(
        f"could not write {path}: {exc.strerror or exc}",
        hint="free space or fix the folder's permissions, then run the same command again "
        "(the runs already written are kept)",
    )
