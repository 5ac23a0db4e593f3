"""Adopt, reject and roll back staged proposals: each a small transaction with a journal.

adopt: refuse a live file that drifted since staging (unless forced) → back up every live file →
journal "begin" → replace each file atomically (temp + rename) → journal "done". A process killed
in between leaves a "begin" without "done"; the next transaction (or ``recover``) restores the
backups byte for byte, so live files are always either all old or all new.
rollback: restore the backups of an adopted proposal byte for byte (created files are removed).
reject: mark the proposal rejected; the caller feeds its edits to the rejected-edit buffer.
"""

from __future__ import annotations

import contextlib
import difflib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, StorageError, UsageError
from skillopt_core.rundir import atomic_write_bytes
from skillopt_sleep.engine.state import (
    ProjectState,
    append_line,
    make_private_dir,
    read_lines,
    write_private,
)
from skillopt_sleep.stage.proposal import load_manifest, set_state, sha256


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def find_proposal(state: ProjectState, proposal: str | None, wanted: str) -> Path:
    """The named proposal, or the latest one in state ``wanted`` (UsageError when none)."""
    if proposal:
        directory = state.proposal_dir(proposal)
        if not (directory / "manifest.json").is_file():
            raise UsageError(
                f"no staged proposal {proposal!r}",
                hint="list them with `skillopt-sleep status`",
            )
        return directory
    for directory in reversed(state.proposals()):
        if load_manifest(directory).get("state") == wanted:
            return directory
    raise UsageError(f"no {wanted} proposal", hint="run a night first: `skillopt-sleep run`")


def _read_live(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def drifted(directory: Path) -> list[str]:
    """Live files that changed since the proposal was staged."""
    out = []
    for entry in load_manifest(directory)["files"]:
        live = _read_live(Path(entry["live_path"]))
        expected = entry["live_sha256"]
        now = sha256(live) if live is not None else ""
        if now != expected:
            out.append(entry["live_path"])
    return out


def _write_live(path: Path, data: bytes) -> None:
    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else None
        atomic_write_bytes(path, data, mode=mode)
    except OSError as exc:
        raise StorageError(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="free some disk space or fix permissions; the journal restores any partial adopt",
        ) from None


def _restore(backup: Path, files: list[dict[str, Any]]) -> None:
    for index, entry in enumerate(files):
        live = Path(entry["live_path"])
        saved = backup / f"{index:02d}.orig"
        if entry.get("created"):
            live.unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # the folder adopt made for it, if now empty
                live.parent.rmdir()
        elif saved.is_file():
            _write_live(live, saved.read_bytes())


def recover(state: ProjectState) -> list[str]:
    """Undo any adopt or rollback that was interrupted; returns the proposals it repaired."""
    begun: dict[str, dict[str, Any]] = {}
    for record in read_lines(state.journal_path):
        key = f"{record.get('action')}:{record.get('proposal')}"
        if record.get("phase") == "begin":
            begun[key] = record
        elif record.get("phase") == "done":
            begun.pop(key, None)
    repaired = []
    for record in begun.values():
        proposal = str(record["proposal"])
        directory = state.proposal_dir(proposal)
        files = load_manifest(directory)["files"]
        if record["action"] == "adopt":
            _restore(state.backup_dir(proposal), files)
            set_state(directory, "pending")
        else:  # an interrupted rollback: finish it (the backups are the target state)
            _restore(state.backup_dir(proposal), files)
            set_state(directory, "rolled back")
        append_line(
            state.journal_path, {**record, "phase": "done", "recovered": True, "at": _now()}
        )
        repaired.append(proposal)
    return repaired


def adopt(
    state: ProjectState, proposal: str | None = None, *, force: bool = False
) -> tuple[str, list[str], Path]:
    directory = find_proposal(state, proposal, "pending")
    manifest = load_manifest(directory)
    if manifest.get("state") != "pending":
        raise UsageError(f"proposal {directory.name} is {manifest.get('state')}, not pending")
    changed = drifted(directory)
    if changed and not force:
        raise DriftError(
            f"live files changed since proposal {directory.name} was staged: {', '.join(changed)}",
            hint="review with `skillopt-sleep adopt --force` (shows a three-way diff first) "
            "or run a new night",
        )
    files = manifest["files"]
    backup = make_private_dir(state.backup_dir(directory.name))
    for index, entry in enumerate(files):
        live = _read_live(Path(entry["live_path"]))
        if live is not None:
            write_private(backup / f"{index:02d}.orig", live)
    append_line(
        state.journal_path,
        {"action": "adopt", "phase": "begin", "proposal": directory.name, "at": _now()},
    )
    for entry in files:
        _write_live(Path(entry["live_path"]), (directory / entry["staged"]).read_bytes())
    set_state(directory, "adopted", adopted_at=_now())
    append_line(
        state.journal_path,
        {"action": "adopt", "phase": "done", "proposal": directory.name, "at": _now()},
    )
    return directory.name, [e["live_path"] for e in files], backup


def rollback(state: ProjectState, proposal: str | None = None) -> tuple[str, list[str], Path]:
    directory = find_proposal(state, proposal, "adopted")
    manifest = load_manifest(directory)
    if manifest.get("state") != "adopted":
        raise UsageError(f"proposal {directory.name} is {manifest.get('state')}, not adopted")
    backup = state.backup_dir(directory.name)
    if not backup.is_dir():
        raise StorageError(f"the backups of {directory.name} are missing from {backup}")
    append_line(
        state.journal_path,
        {"action": "rollback", "phase": "begin", "proposal": directory.name, "at": _now()},
    )
    _restore(backup, manifest["files"])
    set_state(directory, "rolled back", rolled_back_at=_now())
    append_line(
        state.journal_path,
        {"action": "rollback", "phase": "done", "proposal": directory.name, "at": _now()},
    )
    return directory.name, [e["live_path"] for e in manifest["files"]], backup


def reject(state: ProjectState, proposal: str | None = None) -> tuple[str, dict[str, Any]]:
    directory = find_proposal(state, proposal, "pending")
    manifest = load_manifest(directory)
    if manifest.get("state") != "pending":
        raise UsageError(f"proposal {directory.name} is {manifest.get('state')}, not pending")
    set_state(directory, "rejected", rejected_at=_now())
    append_line(
        state.journal_path,
        {"action": "reject", "phase": "done", "proposal": directory.name, "at": _now()},
    )
    return directory.name, manifest


def three_way(state: ProjectState, proposal: str | None = None) -> str:
    """For a drifted proposal, per file: what changed live since staging (base -> live now) and
    what the proposal changes (base -> proposed), so a forced adopt is a decision, not a guess."""
    directory = find_proposal(state, proposal, "pending")
    out: list[str] = []
    for entry in load_manifest(directory)["files"]:
        live_path = Path(entry["live_path"])
        base_file = directory / f"{entry['staged']}.base"
        base = (
            base_file.read_text(encoding="utf-8", errors="replace") if base_file.is_file() else ""
        )
        live = (_read_live(live_path) or b"").decode("utf-8", "replace")
        proposed = (directory / entry["staged"]).read_text(encoding="utf-8")
        for label, text in (("live now", live), ("proposed", proposed)):
            out.extend(
                difflib.unified_diff(
                    base.splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    f"{live_path} (staged from)",
                    f"{live_path} ({label})",
                )
            )
    return "".join(out)
