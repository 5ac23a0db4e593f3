"""A ledger's call journal: one JSON line per settled call, appended as the call settles.

The journal lives in the run directory, so the run (not one invocation) owns its spend: a resumed
or restarted run reads the journal back and its budget counts every call the run ever made. Lines
are appended and flushed one at a time; a process killed mid-write leaves at most a torn last
line, which is ignored on reading.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError


@dataclass(frozen=True)
class CallRecord:
    """One logical call (retries included) as the ledger keeps it."""

    role: str
    backend: str
    model: str
    purpose: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 1
    ok: bool = True
    error: str = ""


_FIELDS = {f.name for f in fields(CallRecord)}


def _record(line: str) -> CallRecord | None:
    try:
        data: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not {"role", "backend", "model", "purpose"} <= set(data):
        return None
    try:
        return CallRecord(**{k: v for k, v in data.items() if k in _FIELDS})
    except TypeError:
        return None


def read_journal(path: Path) -> list[CallRecord]:
    """Every call recorded in ``path`` (none when it does not exist). A torn last line (a write
    cut short by a kill) is cut off the file, so that later appends start on a fresh line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(
            f"cannot read the call journal {path}: {exc.strerror or exc}",
            hint="check the run directory's permissions",
        ) from exc
    complete = data.rfind(b"\n") + 1
    records: list[CallRecord] = []
    for number, line in enumerate(data[:complete].decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        record = _record(line)
        if record is None:
            raise StorageError(
                f"the call journal {path} is damaged at line {number}",
                hint="the run's spend is unknown: choose a new --out-root, or delete the journal "
                "to restart the count (the budget then forgets the earlier calls)",
            )
        records.append(record)
    if complete < len(data):
        _truncate(path, complete)
    return records


def _truncate(path: Path, size: int) -> None:
    try:
        with path.open("r+b") as handle:
            handle.truncate(size)
    except OSError as exc:
        raise StorageError(
            f"cannot repair the call journal {path}: {exc.strerror or exc}",
            hint="check that the run directory is writable",
        ) from exc


def append_journal(path: Path, record: CallRecord) -> None:
    line = json.dumps(asdict(record), separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError as exc:
        raise StorageError(
            f"cannot record a call in {path}: {exc.strerror or exc}",
            hint="check that the run directory is writable and the disk has space",
        ) from exc
