"""Adopt, reject and roll back staged proposals: each a small transaction with a journal.

adopt: refuse a live file that drifted since staging (unless forced; the refusal says how each
changed) or that is not a regular file → read every staged file (one missing: the proposal is
damaged, nothing is written) → back up every live file → journal "begin" → replace each file
atomically (temp + rename) → mark the manifest "adopted" (the commit) → journal "done". A write
that fails before the commit (the manifest's too) puts back the files already replaced at once,
and the error says nothing was adopted; a process killed in between leaves a "begin" without
"done", and the next transaction (or ``recover``) restores the backups byte for byte and removes
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
rollback: refuse a live file changed since the adopt wrote it (edited by hand, or adopted over by
a later proposal) unless forced, which keeps its text as ``NN.at-rollback`` beside the backups
and first rolls back each proposal adopted over it since (newest first);
then restore the backups of an adopted proposal byte for byte; a file that had no backup did
not exist before the adopt and is removed, and so is each folder the adopt made for such files
(its journal "begin" lists them) once empty. A folder that was there before the adopt stays.
Like an adopt, a rollback whose write fails puts the live files back as it found them (nothing
rolled back), and one killed is finished by the next transaction.
reject: mark the proposal rejected; the caller feeds its edits to the rejected-edit buffer.
Which other proposals stay pending after each, and how many settled ones are kept: .retention.
"""

from __future__ import annotations

import contextlib
import difflib
import glob
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, StorageError, UsageError
from skillopt_core.rundir import atomic_write_bytes, link_target
from skillopt_sleep.engine.state import (
    ProjectState,
    append_line,
    make_private_dir,
    read_lines,
)
from skillopt_sleep.stage import backup_store, retention
from skillopt_sleep.stage._live import adopted_over, changed_since_adopt, drift, read_live
from skillopt_sleep.stage.proposal import (
    link_note,
    load_manifest,
    readable_manifest,
    require_pending,
    set_state,
    staged_bytes,
)

_TEMP_PART = re.compile(r"[a-z0-9_]{8}")  # the random part of a tempfile.mkstemp name
FINISHED = {"adopt": "adopted", "rollback": "rolled back"}  # the manifest state each one ends in


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


@dataclass(frozen=True)
class Recovery:
    """What ``recover`` did about one unfinished transaction."""

    proposal: str
    action: str  # the interrupted action: "adopt" | "rollback"
    repaired: bool  # True: only its "done" record was lost (the manifest says it finished)
    files: tuple[str, ...]

    @property
    def message(self) -> str:
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


def find_proposal(state: ProjectState, proposal: str | None, wanted: str) -> Path:
    """The named proposal, or (``proposal`` None) the latest one in state ``wanted``;
    UsageError when there is none (an empty id is an error, not "the latest")."""
    if proposal is not None:
        return state.staged_proposal(proposal)
    staged: list[tuple[Path, dict[str, Any] | None]] = [
        (d, readable_manifest(d)) for d in state.proposals()
    ]
    for candidate, read in staged[::-1]:
        if read is not None and read.get("state") == wanted:
            return candidate
    if not staged:
        raise UsageError(f"no {wanted} proposal", hint="run a night first: `skillopt-sleep run`")
    latest, read = staged[-1]
    raise UsageError(
        f"no {wanted} proposal (the latest, {latest.name}, is "
        f"{read.get('state', 'unknown') if read is not None else 'damaged'})",
        hint="`skillopt-sleep proposals` lists them all; the next night stages a new one",
    )


def _umask_mode() -> int:
    """The mode a new file gets under the process umask. Read from /proc where there is one:
    setting the umask to read it back races with threads creating files (the MCP server)."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _write_live(path: Path, data: bytes, action: str = "adopt") -> None:
    target = link_target(path)
    try:
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _umask_mode()
        atomic_write_bytes(target, data, mode=mode)
    except OSError as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
        raise StorageError(
            f"cannot write {path}: {cause.strerror or cause}",
            hint=f"make {target.parent} writable or free some disk space, then {action} again",
        ) from None


def _remove_temp_files(path: Path) -> None:
    """Delete the temp file a killed atomic write left beside ``path`` (``.<name>.XXXXXXXX``)."""
    for live in {path, link_target(path)}:
        prefix = f".{live.name}."
        for leftover in live.parent.glob(glob.escape(prefix) + "*"):
            if _TEMP_PART.fullmatch(leftover.name[len(prefix) :]) and not leftover.is_symlink():
                with contextlib.suppress(OSError):
                    leftover.unlink()


def _missing_folders(files: list[dict[str, Any]]) -> list[str]:
    """The folders writing ``files`` will create: each live file's ancestors that do not exist."""
    out: list[str] = []
    for entry in files:
        folder = link_target(Path(entry["live_path"])).parent
        while not os.path.lexists(folder) and str(folder) not in out:
            out.append(str(folder))
            folder = folder.parent
    return out


def _created_folders(state: ProjectState, proposal: str) -> list[str]:
    """The folders the last adopt of ``proposal`` created, as its journal "begin" lists them
    (none for an adopt journaled before they were listed: an empty folder left is harmless)."""
    folders: object = []
    for record in read_lines(state.journal_path):
        begin = record.get("action") == "adopt" and record.get("phase") == "begin"
        if begin and record.get("proposal") == proposal:
            folders = record.get("created_folders", [])
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def _restore(
    backup: Path, files: list[dict[str, Any]], created_folders: list[str], action: str = "adopt"
) -> None:
    """Put each live file back as the adopt found it: its backup, or no file when it had none;
    then remove the folders the adopt created, deepest first, each only if empty. A file already
    as it was is not written (a read-only folder an adopt failed on stays untouched)."""
    for index, entry in enumerate(files):
        live = Path(entry["live_path"])
        saved = backup / f"{index:02d}.orig"
        if saved.is_file():
            before = saved.read_bytes()
            if read_live(live) != before:
                _write_live(live, before, action)
            continue
        _remove_live(live, action)
    for folder in sorted(created_folders, key=lambda f: len(Path(f).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or gone): it stays
            Path(folder).rmdir()


def _remove_live(path: Path, action: str) -> None:
    try:
        link_target(path).unlink(missing_ok=True)
    except OSError as exc:
        raise StorageError(
            f"cannot remove {path}: {exc.strerror or exc}",
            hint=f"make {link_target(path).parent} writable, then {action} again",
        ) from None


def _put_back(files: list[dict[str, Any]], found: list[bytes | None], action: str) -> None:
    """Write each live file as ``found`` holds it (None: no file), undoing a cut-short write."""
    for entry, data in zip(files, found, strict=True):
        live = Path(entry["live_path"])
        if read_live(live) != data:
            if data is None:
                _remove_live(live, action)
            else:
                _write_live(live, data, action)


def _cut_short(
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
        return StorageError(
            f"{error.message}; putting the live files back failed too ({again.message}), so "
            f"the {action} of {begin['proposal']} is cut short",
            hint=f"{error.hint}; the next skillopt-sleep command {mends} the cut-short "
            f"{action} first (`skillopt-sleep status` names it until then)",
        )
    with contextlib.suppress(StorageError):  # else the next command's recover records it
        _finish(state, begin, undone=True)
    done = "adopted" if action == "adopt" else "rolled back"
    return StorageError(f"{error.message}; nothing was {done}", hint=error.hint)


def _after_commit(*steps: Callable[[], object]) -> None:
    """Book-keeping after the manifest recorded an adopt or rollback (the transaction's commit):
    a full disk here must not fail a command that did what it was asked. A "done" line that is
    not written is repaired by :func:`recover` from the manifest; pending proposals not marked
    superseded are refused as drifted if adopted."""
    for step in steps:
        with contextlib.suppress(StorageError):
            step()


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
        if load_manifest(state.proposal_dir(proposal)).get("state") == FINISHED.get(action):
            continue  # finished; only its record was lost
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


def _finish(state: ProjectState, record: dict[str, Any], **extra: Any) -> None:
    append_line(state.journal_path, {**record, "phase": "done", "at": _now(), **extra})


ROLLED_BACK = "rolled back by the user"  # how a rolled-back proposal's edits are refused


def refuse_edits(state: ProjectState, name: str, why: str) -> None:
    """Put proposal ``name``'s accepted edits into the rejected-edit buffer of each file they
    were for (``why`` prefixes their rationale), so no later night proposes them again. An edit
    already refused for the same reason is not added twice: a rollback that :func:`recover`
    finishes refuses its edits whether or not the interrupted command got that far."""
    from skillopt_sleep.engine.state import read_json, write_json

    report = read_json(state.proposal_dir(name) / "report.json", {}) or {}
    carry = read_json(state.optimizer_path, {}) or {}
    for edit in report.get("edits", []):
        if not edit.get("accepted"):
            continue
        entry = carry.setdefault(edit["skill"], {"rejected": [], "meta_notes": "", "nights": 0})
        refused = {
            "op": edit["op"],
            "anchor": edit["anchor"],
            "content": edit["content"],
            "rationale": f"{why}: {edit.get('rationale', '')}",
            "support": 1,
            "source": "failure",
        }
        rejected = entry.setdefault("rejected", [])
        if any(r.get("edit") == refused for r in rejected):
            continue
        rejected.append({"edit": refused, "delta": 0.0, "step": -1, "alone": True})
    write_json(state.optimizer_path, carry)


def recover(state: ProjectState) -> list[Recovery]:
    """Undo any adopt and finish any rollback that was interrupted; say what it did. The temp
    files that killed writes left in the state directory go too
    (:meth:`~skillopt_sleep.engine.state.ProjectState.remove_temp_files`)."""
    state.remove_temp_files()
    done = []
    for record in _unfinished(state):
        proposal, action = str(record["proposal"]), str(record["action"])
        directory = state.proposal_dir(proposal)
        manifest = load_manifest(directory)
        files = manifest["files"]
        repaired = manifest.get("state") == FINISHED.get(action)
        if not repaired:
            for entry in files:
                _remove_temp_files(Path(entry["live_path"]))
            _restore(state.backup_dir(proposal), files, _created_folders(state, proposal))
            set_state(directory, "pending" if action == "adopt" else "rolled back")
        if action == "rollback":  # its edits were refused only if the command got that far
            refuse_edits(state, proposal, ROLLED_BACK)
        _finish(state, record, recovered=True, repaired=repaired)
        done.append(Recovery(proposal, action, repaired, tuple(f["live_path"] for f in files)))
    return done


def _back_up(backup: Path, files: list[dict[str, Any]]) -> None:
    """Save every live file as it is now, each content stored once (:mod:`.backup_store`);
    stale backups of an earlier, undone adopt go first, so a missing backup always means "no
    file before this adopt"."""
    make_private_dir(backup)
    for stale in backup.glob("*.orig"):
        stale.unlink()
    for index, entry in enumerate(files):
        live = read_live(Path(entry["live_path"]))
        if live is not None:
            backup_store.keep(backup.parent, backup / f"{index:02d}.orig", live)


def _refuse_outside(state: ProjectState, files: list[dict[str, Any]], home: Path) -> None:
    """DriftError for a file whose proposal was made from outside the project and the user's
    skills, or that would now be created through a link leading out of them (module doc)."""
    from skillopt_sleep.skills import link_problem

    for entry in files:
        live = Path(entry["live_path"])
        now = os.path.realpath(live)
        for real in {str(entry.get("target") or now), *([now] if entry.get("created") else [])}:
            problem = link_problem(live, state.project, home, real)
            if problem:
                raise DriftError(
                    problem,
                    hint="reject the proposal if you did not make that link; if the file is "
                    "yours, `skillopt-sleep adopt --force` writes it",
                )


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
        _refuse_outside(state, manifest["files"], home or Path.home())
    changed = drift(directory)
    if changed and not force:
        raise _drift_error(directory.name, changed)
    files = manifest["files"]
    proposed = [staged_bytes(directory, entry) for entry in files]  # all there, before any write
    backup = state.backup_dir(directory.name)
    _back_up(backup, files)
    created = _missing_folders(files)
    begin = {
        "action": "adopt",
        "phase": "begin",
        "proposal": directory.name,
        "at": _now(),
        "created_folders": created,
    }
    append_line(state.journal_path, begin)
    try:
        for entry, data in zip(files, proposed, strict=True):
            _write_live(Path(entry["live_path"]), data)
        set_state(directory, "adopted", adopted_at=_now())
    except StorageError as exc:
        raise _cut_short(state, begin, exc, lambda: _restore(backup, files, created)) from None
    _after_commit(lambda: _finish(state, begin), lambda: retention.after_adopt(state, directory))
    return directory.name, [e["live_path"] for e in files], backup


def _drift_error(proposal: str, changed: list[tuple[str, str]]) -> DriftError:
    files = "; ".join(f"{path} ({how})" for path, how in changed)
    put_back = (
        "put a deleted file back (moved it, or checked out another branch?) and adopt again; "
        if any(how.startswith("deleted") for _, how in changed)
        else ""
    )
    return DriftError(
        f"live files changed since proposal {proposal} was staged: {files}",
        hint=f"{put_back}`skillopt-sleep adopt {proposal} --force` shows both changes and writes "
        "the proposal over yours (they stay in its backup), or run a new night: it starts from "
        "the files as they are now",
    )


def rollback(
    state: ProjectState, proposal: str | None = None, *, force: bool = False
) -> tuple[str, list[str], Path, list[str]]:
    """Restore what the adopt replaced. A live file changed since the adopt wrote it is refused
    (its text would be lost) unless ``force``, which first keeps it beside the backups and rolls
    back the proposals adopted over it since; their names come last (their edits refused too)."""
    directory = find_proposal(state, proposal, "adopted")
    manifest = load_manifest(directory)
    if manifest.get("state") != "adopted":
        raise UsageError(f"proposal {directory.name} is {manifest.get('state')}, not adopted")
    backup = state.backup_dir(directory.name)
    if not backup.is_dir():
        raise StorageError(f"the backups of {directory.name} are missing from {backup}")
    changed = changed_since_adopt(directory, backup, manifest["files"])
    if changed and not force:
        raise _changed_error(state, directory, changed)
    _keep_changed(backup, manifest["files"], changed)
    also = _drop_later_adopts(state, directory, changed)
    files = manifest["files"]
    found = [read_live(Path(entry["live_path"])) for entry in files]
    begin = {"action": "rollback", "phase": "begin", "proposal": directory.name, "at": _now()}
    append_line(state.journal_path, begin)
    try:
        _restore(backup, files, _created_folders(state, directory.name), "roll back")
        set_state(directory, "rolled back", rolled_back_at=_now())
    except StorageError as exc:
        raise _cut_short(state, begin, exc, lambda: _put_back(files, found, "roll back")) from None
    _after_commit(lambda: _finish(state, begin), lambda: retention.after_rollback(state, directory))
    return directory.name, [e["live_path"] for e in files], backup, also


def _drop_later_adopts(state: ProjectState, directory: Path, changed: list[str]) -> list[str]:
    """Roll back, newest first, each proposal adopted over ``changed`` files since
    ``directory``'s adopt, so none of them still reads "adopted" with its text gone (a later
    ``rollback`` of it would put ``directory``'s edits back); their edits are refused like any
    rolled-back proposal's. Returns their names."""
    later = list(reversed(adopted_over(directory, changed, state.proposals())))
    for name in later:
        rollback(state, name, force=True)
        refuse_edits(state, name, ROLLED_BACK)
    return later


def _changed_error(state: ProjectState, directory: Path, changed: list[str]) -> DriftError:
    later = adopted_over(directory, changed, state.proposals())
    if later:
        return DriftError(
            f"proposal {later[-1]} was adopted over {directory.name} since: rolling back "
            f"{directory.name} would drop it too ({', '.join(changed)})",
            hint=f"roll back {later[-1]} first (`skillopt-sleep rollback {later[-1]}`), "
            f"or `skillopt-sleep rollback {directory.name} --force` to drop both",
        )
    return DriftError(
        f"live files changed since proposal {directory.name} was adopted: {', '.join(changed)}; "
        "rolling back would lose those changes",
        hint=f"`skillopt-sleep rollback {directory.name} --force` keeps them beside its backups "
        "(named in its output) and rolls back anyway",
    )


def _keep_changed(backup: Path, files: list[dict[str, Any]], changed: list[str]) -> None:
    """Save each changed live file as ``NN.at-rollback`` beside the adopt's backups."""
    for index, entry in enumerate(files):
        if entry["live_path"] in changed:
            live = read_live(Path(entry["live_path"]))
            if live is not None:
                backup_store.keep(backup.parent, backup / f"{index:02d}.at-rollback", live)


def reject(state: ProjectState, proposal: str | None = None) -> tuple[str, dict[str, Any]]:
    directory = find_proposal(state, proposal, "pending")
    manifest = load_manifest(directory)
    require_pending(directory, manifest)
    set_state(directory, "rejected", rejected_at=_now())
    append_line(
        state.journal_path,
        {"action": "reject", "phase": "done", "proposal": directory.name, "at": _now()},
    )
    retention.prune(state, spare=directory.name)
    return directory.name, manifest


def three_way(state: ProjectState, proposal: str | None = None) -> str:
    """For a drifted proposal, per file: what changed live since staging (base -> live now) and
    what the proposal changes (base -> proposed), so a forced adopt is a decision, not a guess."""
    directory = find_proposal(state, proposal, "pending")
    out: list[str] = []
    for entry in load_manifest(directory)["files"]:
        live_path = Path(entry["live_path"])
        base_file = directory / f"{entry['staged']}.base"
        base = base_file.read_bytes().decode("utf-8", "replace") if base_file.is_file() else ""
        live = (read_live(live_path) or b"").decode("utf-8", "replace")
        proposed = staged_bytes(directory, entry).decode("utf-8", "replace")
        out.append(link_note(live_path))
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
