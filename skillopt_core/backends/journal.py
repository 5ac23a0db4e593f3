"""A ledger's call journal: a JSON line as each call (or retry) begins, and one as it settles.

The journal lives in the run directory, so the run (not one invocation) owns its spend: a resumed
or restarted run reads the journal back and its budget counts every call the run ever made. A call
is written down before its request goes out (``{"begun": key, ...}``, its provisional record: the
estimate), and its settled record names the same key (``"call"``). A call that began but never
settled (the process was killed while it was in flight; a provider bills it all the same) is read
back as its provisional record, one attempt per line that began it. Lines are appended and flushed
one at a time; a process killed mid-write leaves at most a torn last line, which is ignored on
reading.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
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


def _record(data: dict[str, Any]) -> CallRecord | None:
    if not {"role", "backend", "model", "purpose"} <= set(data):
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
    begun: dict[str, tuple[CallRecord, int]] = {}  # key -> provisional record, attempts begun
    settled: set[str] = set()
    for number, line in enumerate(data[:complete].decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        parsed = _line(line)
        if parsed is None:
            raise StorageError(
                f"the call journal {path} is damaged at line {number}",
                hint="the run's spend is unknown: choose a new --out-root, or delete the journal "
                "to restart the count (the budget then forgets the earlier calls)",
            )
        record, begins, settles = parsed
        if begins:
            begun[begins] = (record, begun[begins][1] + 1 if begins in begun else 1)
            continue
        if settles:
            settled.add(settles)
        records.append(record)
    if complete < len(data):
        _truncate(path, complete)
    records.extend(replace(r, attempts=n) for k, (r, n) in begun.items() if k not in settled)
    return records


def _line(line: str) -> tuple[CallRecord, str, str] | None:
    """A line's record, the key of the call it begins ("" if none) and of the one it settles."""
    try:
        data: Any = json.loads(line)
    except ValueError:
        return None
    record = _record(data) if isinstance(data, dict) else None
    if record is None:
        return None
    begins, settles = data.get("begun", ""), data.get("call", "")
    if not isinstance(begins, str) or not isinstance(settles, str):
        return None
    return record, begins, settles


def _truncate(path: Path, size: int) -> None:
    try:
        with path.open("r+b") as handle:
            handle.truncate(size)
    except OSError as exc:
        raise StorageError(
            f"cannot repair the call journal {path}: {exc.strerror or exc}",
            hint="check that the run directory is writable",
        ) from exc


UNSETTLED = "not settled: the process ended while this call was in flight (its estimate counted)"


def begun_record(record: CallRecord) -> CallRecord:
    """The provisional record a call is journaled with as it begins."""
    return replace(record, ok=False, error=UNSETTLED)


def append_journal(path: Path, record: CallRecord, *, begun: str = "", settles: str = "") -> None:
    """Append ``record``: settled (naming the call it ``settles``, if it was begun) or, with
    ``begun``, the provisional record of a call (or retry) about to go out."""
    entry: dict[str, Any] = asdict(record)
    if begun:
        entry["begun"] = begun
    if settles:
        entry["call"] = settles
    line = json.dumps(entry, separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError as exc:
        raise StorageError(
            f"cannot record a call in {path}: {exc.strerror or exc}",
            hint="check that the run directory is writable and the disk has space",
        ) from exc
