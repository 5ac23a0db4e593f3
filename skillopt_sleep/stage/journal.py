"""The transaction journal (``journal.jsonl``): what an adopt or rollback cut short left, and
the recovery every adopt, rollback and night runs first.

An adopt or rollback appends "begin" before its first live write and "done" after its commit
(the manifest's new state) and book-keeping. A "begin" without "done" is an interrupted one:
:func:`recover` undoes an adopt (the backups back, byte for byte) and finishes a rollback; one
whose manifest already says it finished only lost its record (or, for a rollback, the refusal
of its edits), which recover completes. Recovery restores only backups that are what the adopt
saved (its "begin" records their sha256); one whose backup is damaged is given up, like one
whose proposal is, with the way out (nothing is written).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, StorageError
from skillopt_sleep.engine.state import UNTOUCHED, ProjectState, append_line, read_lines
from skillopt_sleep.stage import backup_store, retention
from skillopt_sleep.stage._live_writes import remove_temp_files, restore
from skillopt_sleep.stage.proposal import load_manifest, set_state
from skillopt_sleep.stage.refusal import ROLLED_BACK, refuse_edits

FINISHED = {"adopt": "adopted", "rollback": "rolled back"}  # the manifest state each one ends in


def now() -> str:
    return datetime.now(timezone.utc).isoformat()


@dataclass(frozen=True)
class Recovery:
    """What ``recover`` did about one unfinished transaction."""

    proposal: str
    action: str  # the interrupted action: "adopt" | "rollback"
    repaired: bool  # True: only its "done" record was lost (the manifest says it finished)
    files: tuple[str, ...]
    damaged: str = ""  # why its proposal (or a backup) could not be read: recover gave up on it
    backup: bool = False  # a backup, not the proposal, is damaged

    @property
    def message(self) -> str:
        if self.damaged:
            return _given_up(self.proposal, self.action, self.damaged, backup=self.backup)
        if self.repaired and self.action == "rollback":
            return (
                f"the rollback of {self.proposal} had finished; its edits are now in the "
                "rejected-edit buffer, so no night proposes them again"
            )
        if self.repaired:
            return (
                f"the journal's record that the {self.action} of {self.proposal} finished was "
                f"damaged; the {self.action} had finished, so it stays {FINISHED[self.action]}"
            )
        if self.action == "adopt":
            return (
                f"an interrupted adopt of {self.proposal} was undone: live files restored "
                "(the proposal is pending again)"
            )
        return f"an interrupted rollback of {self.proposal} was finished: live files restored"


def _given_up(proposal: str, action: str, why: str, *, backup: bool = False) -> str:
    cause = why if backup else f"its proposal is damaged ({why})"
    return (
        f"an interrupted {action} of {proposal} cannot be finished: {cause}; the files it "
        "was writing may be part old, part new: compare them with the "
        f"backups in backups/{proposal} of the state directory, then `skillopt-sleep rollback "
        f"{proposal}` stops this message"
    )


def _manifest(state: ProjectState, proposal: str) -> tuple[dict[str, Any] | None, str]:
    """The manifest of ``proposal``, or None and why it cannot be read (deleted, damaged)."""
    try:
        return load_manifest(state.proposal_dir(proposal)), ""
    except StorageError as exc:
        return None, exc.message


def _unfinished(state: ProjectState) -> list[dict[str, Any]]:
    """Journal "begin" records without their "done" (read only)."""
    begun: dict[str, dict[str, Any]] = {}
    for record in read_lines(state.journal_path):
        key = f"{record.get('action')}:{record.get('proposal')}"
        if record.get("phase") == "begin":
            begun[key] = record
        elif record.get("phase") == "done":
            begun.pop(key, None)
    return list(begun.values())


def interrupted(state: ProjectState) -> list[str]:
    """What an interrupted transaction left for ``recover`` to do, and the command that does
    it; read only (for ``status``)."""
    out = []
    for record in _unfinished(state):
        proposal, action = str(record["proposal"]), str(record["action"])
        manifest, damaged = _manifest(state, proposal)
        backup = False  # True: a backup it would restore (not its proposal) is why
        if manifest is not None and manifest.get("state") != FINISHED.get(action):
            damaged, backup = _damaged_backup(state, proposal, manifest), True
        if manifest is None or damaged:
            out.append(
                f"{_given_up(proposal, action, damaged, backup=backup)} (the next adopt, "
                "rollback or night stops trying)"
            )
            continue
        if manifest.get("state") == FINISHED.get(action):
            if action == "rollback":  # its edits may not be refused yet
                out.append(
                    f"{proposal} was rolled back, but its edits may not be in the rejected-edit "
                    f"buffer yet: `skillopt-sleep rollback {proposal}` adds them"
                )
            continue  # an adopt finished; only its record was lost
        if action == "adopt":
            out.append(
                f"the adopt of {proposal} was interrupted: live files may be part old, part new; "
                "`skillopt-sleep rollback` restores them (`skillopt-sleep adopt` adopts it again)"
            )
        else:
            out.append(
                f"the rollback of {proposal} was interrupted: `skillopt-sleep rollback` finishes it"
            )
    return out


def _damaged_backup(state: ProjectState, proposal: str, manifest: dict[str, Any]) -> str:
    """Why a backup the recovery of ``proposal`` would restore is damaged ("" when none is)."""
    try:
        backups(state, proposal, manifest["files"])
    except backup_store.DamagedBackup as exc:
        return exc.message
    except StorageError:  # unreadable: recover says so and what to fix
        pass
    return ""


def finish(state: ProjectState, record: dict[str, Any], **extra: Any) -> None:
    append_line(state.journal_path, {**record, "phase": "done", "at": now(), **extra})


def _adopt_begin(state: ProjectState, proposal: str) -> dict[str, Any]:
    """The journal "begin" of the last adopt of ``proposal`` ({} when there is none)."""
    found: dict[str, Any] = {}
    for record in read_lines(state.journal_path):
        begin = record.get("action") == "adopt" and record.get("phase") == "begin"
        if begin and record.get("proposal") == proposal:
            found = record
    return found


def created_folders(state: ProjectState, proposal: str) -> list[str]:
    """The folders the last adopt of ``proposal`` created, as its journal "begin" lists them
    (none for an adopt journaled before they were listed: an empty folder left is harmless)."""
    folders = _adopt_begin(state, proposal).get("created_folders", [])
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def backups(state: ProjectState, proposal: str, files: list[dict[str, Any]]) -> list[bytes | None]:
    """The backups of the last adopt of ``proposal``, checked against the sha256 its journal
    "begin" recorded (:func:`~skillopt_sleep.stage.backup_store.read_verified`): what a
    rollback or a recovery restores, read before either writes anything."""
    recorded = _adopt_begin(state, proposal).get("backups")
    return backup_store.read_verified(state.backup_dir(proposal), files, recorded)


def cut_short(
    state: ProjectState, begin: dict[str, Any], error: StorageError, undo: Callable[[], None]
) -> StorageError:
    """The error to raise for an adopt or rollback whose write failed: ``undo`` puts the live
    files back as they were before it, and the journal records it undone. When that fails
    too, the journal's "begin" stays, so the next command's :func:`recover` finishes the job;
    the message says which happened (it said "live files are untouched" either way)."""
    action = str(begin["action"])
    try:
        undo()
    except (StorageError, DriftError) as again:
        mends = "undoes" if action == "adopt" else "finishes"
        hint = error.hint.replace(f"; {UNTOUCHED}", "")  # a failed state write's default
        return StorageError(
            f"{error.message}; putting the live files back failed too ({again.message}), so "
            f"the {action} of {begin['proposal']} is cut short",
            hint=f"{hint}; the next skillopt-sleep command {mends} the cut-short "
            f"{action} first (`skillopt-sleep status` names it until then)",
        )
    with contextlib.suppress(StorageError):  # else the next command's recover records it
        finish(state, begin, undone=True)
    done = "adopted" if action == "adopt" else "rolled back"
    return StorageError(f"{error.message}; nothing was {done}", hint=error.hint)


def after_commit(*steps: Callable[[], object]) -> None:
    """Book-keeping after the manifest recorded an adopt or rollback (the transaction's commit):
    a full disk here must not fail a command that did what it was asked. A "done" line that is
    not written is repaired by :func:`recover` from the manifest; pending proposals not marked
    superseded are refused as drifted if adopted."""
    for step in steps:
        with contextlib.suppress(StorageError):
            step()


def recover(state: ProjectState, *, give_up: str | None = None) -> list[Recovery]:
    """Undo any adopt and finish any rollback that was interrupted; say what it did. The temp
    files that killed writes left in the state directory go too
    (:meth:`~skillopt_sleep.engine.state.ProjectState.remove_temp_files`). One whose proposal
    is deleted or damaged, or whose backups are, cannot be finished (which files, from which
    backups?): it stops no command, and each says where its backups are until the user,
    having checked the files, names it (``give_up``: ``rollback <id>``), which closes it in the
    journal."""
    state.remove_temp_files()
    done = []
    for record in _unfinished(state):
        proposal, action = str(record["proposal"]), str(record["action"])
        directory = state.proposal_dir(proposal)
        manifest, damaged = _manifest(state, proposal)
        if manifest is None:
            if proposal == give_up:
                finish(state, record, recovered=False, given_up=damaged)
            done.append(Recovery(proposal, action, False, (), damaged))
            continue
        files = manifest["files"]
        repaired = manifest.get("state") == FINISHED.get(action)
        if not repaired:
            try:
                saved = backups(state, proposal, files)  # checked before anything is written
            except backup_store.DamagedBackup as exc:
                if proposal == give_up:
                    finish(state, record, recovered=False, given_up=exc.message)
                done.append(Recovery(proposal, action, False, (), exc.message, backup=True))
                continue
            for entry in files:
                remove_temp_files(Path(entry["live_path"]))
            restore(saved, files, created_folders(state, proposal))
            set_state(directory, "pending" if action == "adopt" else "rolled back")
        if action == "rollback":  # its edits were refused only if the command got that far
            refuse_edits(state, proposal, ROLLED_BACK)
        finish(state, record, recovered=True, repaired=repaired)
        if action == "rollback":
            with contextlib.suppress(StorageError):  # book-keeping after the commit
                retention.after_rollback(state, directory)
        done.append(Recovery(proposal, action, repaired, tuple(f["live_path"] for f in files)))
    return done
