"""Adopt, reject and roll back staged proposals: each a small transaction with a journal.

adopt: refuse a live file that drifted since staging (unless forced; the refusal says how each
changed) or that is not a regular file → read every staged file (one missing, or not the bytes
its manifest pins: the proposal is damaged, nothing is written) → back up every live file →
journal "begin" (with each backup's sha256) → replace each file atomically (temp + rename) →
mark the manifest "adopted" (the commit) → journal "done". A write that fails before the commit
(the manifest's too) puts back the files already replaced at once, and the error says nothing
was adopted; a process killed in between leaves a "begin" without "done", and the next
transaction (or ``recover``) restores the backups byte for byte (checked first) and removes
the killed write's temp file, so live files are always either all old or all new. The manifest
turns "adopted" only after the last file is replaced, so a "begin" whose "done" line was torn
(or not written: a full disk after the commit fails no command) while the manifest says
"adopted" is a finished adopt: it stays. A symlinked live file (skills kept in a dotfiles repo)
is written through its link, but only where a night may read a skill
(:func:`skillopt_sleep.skills.link_problem`): a proposal made from a file a link leads to
outside the project and the user's skills (a proposal an older version staged, its manifest
naming no ``target``), or a new file whose path became a link out of them since staging, is
refused unless forced. A new live file gets the mode any new file gets under the umask (0666 &
~umask), not the engine's private 0600.
rollback: read every backup and check it against the sha256 the adopt recorded (one damaged or
missing: refused, nothing is written, whatever ``force`` says); refuse a live file changed since
the adopt wrote it (edited by hand, or adopted over by a later proposal) unless
forced, which keeps its text as ``NN.at-rollback`` beside the backups and first rolls back each
proposal adopted over it since (newest first); then restore those checked backups byte for
byte; a file that had no backup did not exist before the adopt and is removed, and so is each
folder the adopt made for such files (its journal "begin" lists them) once empty. A folder that
was there before the adopt stays.
Like an adopt, a rollback whose write fails puts the live files back as it found them (nothing
rolled back), and one killed is finished by the next transaction.
reject: feed the proposal's edits to the rejected-edit buffer, then mark it rejected.
Which other proposals stay pending after each, and how many settled ones are kept: .retention;
the journal and recovery: .journal; the live writes: ._live_writes; the refusals before any
write: ._checks; the rejected-edit buffer: .refusal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError, UsageError
from skillopt_sleep.engine.state import ProjectState, append_line
from skillopt_sleep.stage import retention
from skillopt_sleep.stage._checks import (
    changed_error,
    drift_error,
    find_proposal,
    refuse_outside,
    three_way,
)
from skillopt_sleep.stage._live import adopted_over, changed_since_adopt, drift, read_live
from skillopt_sleep.stage._live_writes import (
    back_up,
    keep_changed,
    missing_folders,
    put_back,
    write_live,
)
from skillopt_sleep.stage._live_writes import restore as _restore  # tests kill a rollback here
from skillopt_sleep.stage.backup_store import DamagedBackup
from skillopt_sleep.stage.journal import (
    FINISHED,
    Recovery,
    after_commit,
    backups,
    created_folders,
    cut_short,
    finish,
    interrupted,
    now,
    recover,
)
from skillopt_sleep.stage.proposal import (
    load_manifest,
    require_pending,
    set_state,
    sha256,
    staged_bytes,
)
from skillopt_sleep.stage.refusal import REJECTED, ROLLED_BACK, refuse_edits, refuse_rolled_back

__all__ = [
    "FINISHED",
    "REJECTED",
    "ROLLED_BACK",
    "Recovery",
    "adopt",
    "find_proposal",
    "interrupted",
    "recover",
    "refuse_edits",
    "reject",
    "rollback",
    "three_way",
]


def adopt(
    state: ProjectState,
    proposal: str | None = None,
    *,
    force: bool = False,
    home: Path | None = None,
) -> tuple[str, list[str], Path]:
    """Replace the live files with the proposal. ``home`` holds the user's skill roots."""
    directory = find_proposal(state, proposal, "pending")
    manifest = load_manifest(directory)
    require_pending(directory, manifest)
    if not force:
        refuse_outside(state, manifest["files"], home or Path.home())
    changed = drift(directory)
    if changed and not force:
        raise drift_error(directory.name, changed)
    files = manifest["files"]
    proposed = [staged_bytes(directory, entry) for entry in files]  # all intact, before any write
    backup = state.backup_dir(directory.name)
    saved = back_up(backup, files)
    created = missing_folders(files)
    begin = {
        "action": "adopt",
        "phase": "begin",
        "proposal": directory.name,
        "at": now(),
        "created_folders": created,
        "backups": [sha256(data) if data is not None else None for data in saved],
    }
    append_line(state.journal_path, begin)
    try:
        for entry, data in zip(files, proposed, strict=True):
            write_live(Path(entry["live_path"]), data)
        set_state(directory, "adopted", adopted_at=now())
    except StorageError as exc:
        raise cut_short(state, begin, exc, lambda: _restore(saved, files, created)) from None
    after_commit(
        lambda: finish(state, begin),
        lambda: retention.after_adopt(state, directory),
        lambda: retention.prune(state, spare=directory.name),
    )
    return directory.name, [e["live_path"] for e in files], backup


def rollback(
    state: ProjectState, proposal: str | None = None, *, force: bool = False
) -> tuple[str, list[str], Path, list[str]]:
    """Restore what the adopt replaced and refuse its edits (the rejected-edit buffer: the next
    night would propose them again, word for word); its journal "done" follows the refusal, so
    a refusal cut short is finished by :func:`recover`. A live file changed since the adopt
    wrote it is refused (its text would be lost) unless ``force``, which first keeps it beside
    the backups and rolls back the proposals adopted over it since; their names come last."""
    directory = find_proposal(state, proposal, "adopted")
    manifest = load_manifest(directory)
    if manifest.get("state") != "adopted":
        raise UsageError(f"proposal {directory.name} is {manifest.get('state')}, not adopted")
    backup = state.backup_dir(directory.name)
    if not backup.is_dir():
        raise StorageError(f"the backups of {directory.name} are missing from {backup}")
    try:  # checked before anything is written: a damaged one is no way back
        saved = backups(state, directory.name, manifest["files"])
    except DamagedBackup as exc:
        raise StorageError(
            f"{exc.message}; nothing was rolled back: the live files are as they were",
            hint=exc.hint,
        ) from None
    changed = changed_since_adopt(directory, saved, manifest["files"])
    if changed and not force:
        raise changed_error(state, directory, changed)
    keep_changed(backup, manifest["files"], changed)
    also = _drop_later_adopts(state, directory, changed)
    files = manifest["files"]
    found = [read_live(Path(entry["live_path"])) for entry in files]
    begin = {"action": "rollback", "phase": "begin", "proposal": directory.name, "at": now()}
    append_line(state.journal_path, begin)
    try:
        _restore(saved, files, created_folders(state, directory.name), "roll back")
        set_state(directory, "rolled back", rolled_back_at=now())
    except StorageError as exc:
        raise cut_short(state, begin, exc, lambda: put_back(files, found, "roll back")) from None
    refuse_rolled_back(state, directory.name)
    after_commit(lambda: finish(state, begin), lambda: retention.after_rollback(state, directory))
    return directory.name, [e["live_path"] for e in files], backup, also


def _drop_later_adopts(state: ProjectState, directory: Path, changed: list[str]) -> list[str]:
    """Roll back, newest first, each proposal adopted over ``changed`` files since
    ``directory``'s adopt, so none of them still reads "adopted" with its text gone (a later
    ``rollback`` of it would put ``directory``'s edits back); their edits are refused like any
    rolled-back proposal's. Returns their names. One that fails says ``directory`` is not
    rolled back yet (its own error told only of the later proposal)."""
    later = list(reversed(adopted_over(directory, changed, state.proposals())))
    for name in later:
        try:
            rollback(state, name, force=True)
        except StorageError as exc:
            raise StorageError(
                f"{exc.message}; {directory.name} is not rolled back yet",
                hint=f"{exc.hint}; `skillopt-sleep rollback {directory.name} --force` again rolls "
                "it back",
            ) from None
    return later


def reject(state: ProjectState, proposal: str | None = None) -> tuple[str, dict[str, Any]]:
    """Refuse the proposal's edits, then mark it rejected: a refusal that fails leaves it
    pending (nothing was rejected, so ``reject`` again works); a mark that fails after it
    leaves edits refused that were never adopted, which no night missed."""
    directory = find_proposal(state, proposal, "pending")
    manifest = load_manifest(directory)
    require_pending(directory, manifest)
    try:
        refuse_edits(state, directory.name, REJECTED)
    except StorageError as exc:
        raise StorageError(f"{exc.message}; nothing was rejected", hint=exc.hint) from None
    set_state(directory, "rejected", rejected_at=now())
    append_line(
        state.journal_path,
        {"action": "reject", "phase": "done", "proposal": directory.name, "at": now()},
    )
    retention.prune(state, spare=directory.name)
    return directory.name, manifest
