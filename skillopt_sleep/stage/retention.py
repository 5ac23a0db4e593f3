"""Which staged proposals stay offered, and how many settled ones are kept, night after night.

A proposal pins the sha256 of each live file it was made from, so of several pending proposals
for one file only the one adopted first can still be adopted; the others would be refused as
drifted (and ``adopt --force`` would put back text without the edits just adopted). So:

- adopting a proposal marks every other pending proposal for one of its files that was made
  from other bytes than the file now holds ``superseded`` (``superseded_by`` names the adopt);
  rolling that adopt back makes them ``pending`` again where the live files match them again,
  unless they hold an edit the user refused, by this rollback or an earlier reject or rollback
  (consecutive nights often propose the same edit, and a refused edit is never proposed
  again); a rollback in turn supersedes the
  pending proposals made from the text it took away (a night's proposal over the adopt's text,
  or one an earlier rollback offered again): they would bring the rolled-back edits back;
- staging a proposal supersedes the older pending ones it wholly replaces: every file of theirs
  is in the new one, made from the same bytes. A user who never adopts then has one pending
  proposal, not one per night; a superseded proposal whose newer one is gone (a killed night's
  proposal, discarded by the next night) is pending again when the next proposal is staged;
- what is kept (checked after each stage, adopt, reject and rollback):
  - every pending proposal;
  - the newest :data:`KEEP_SETTLED` settled ones (rejected, superseded, rolled back);
  - the newest :data:`KEEP_ADOPTED` adopted ones: rollback reads an adopted proposal's manifest
    and backups, so older adopts can no longer be undone one by one (their text stays live;
    rolling back a newer adopt restores what it replaced);
  - and, whatever its age, each adopted proposal that is the newest adopt of one of its files:
    the only way back for a file adopted once and left alone since.

  The rest are removed with their backups, so the state grows with the number of files, not of
  nights. Backup contents no adopt links to any more go too. The text a forced rollback kept
  (``backups/<id>/NN.at-rollback``, named in its output) is the user's own, never removed:
  it stays where the rollback said, until the user deletes it.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_core.records import Edit
from skillopt_sleep.engine.state import ProjectState, read_json
from skillopt_sleep.stage._live import adopt_order
from skillopt_sleep.stage.proposal import load_manifest, set_state, sha256, staged_bytes

KEEP_SETTLED = 30
KEEP_ADOPTED = 30
SETTLED = ("rejected", "superseded", "rolled back")
USERS_TEXT = "*.at-rollback"  # what a forced rollback kept of a changed live file


def _manifests(state: ProjectState) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for directory in state.proposals():
        try:
            out.append((directory, load_manifest(directory)))
        except StorageError:  # a damaged one is left for the commands that name it
            continue
    return out


def _pins(manifest: dict[str, Any]) -> dict[str, str]:
    return {str(f["live_path"]): str(f.get("live_sha256", "")) for f in manifest["files"]}


def _live_sha(path: str) -> str:
    try:
        return sha256(Path(path).read_bytes())
    except OSError:
        return ""


def after_adopt(state: ProjectState, adopted: Path) -> list[str]:
    """Supersede the pending proposals the adopt of ``adopted`` made unadoptable."""
    live = {path: _live_sha(path) for path in _pins(load_manifest(adopted))}
    out = []
    for directory, manifest in _manifests(state):
        if directory == adopted or manifest.get("state", "pending") != "pending":
            continue
        stale = [p for p, pin in _pins(manifest).items() if p in live and pin != live[p]]
        if stale:
            set_state(directory, "superseded", superseded_by=adopted.name)
            out.append(directory.name)
    return out


def after_rollback(state: ProjectState, rolled_back: Path) -> list[str]:
    """Settle what the rollback of ``rolled_back`` changed (see the module doc): a pending
    proposal made from other bytes than a restored file now holds is superseded (it was made
    over the text just taken away); what the adopt superseded is offered again where nothing
    has drifted, unless it holds an edit the user refused (this rollback's, or one refused
    before). Returns the proposals offered again."""
    restored = {path: _live_sha(path) for path in _pins(load_manifest(rolled_back))}
    refused = (_accepted_edits(rolled_back) or set()) | _refused_by_user(state)
    out = []
    for directory, manifest in _manifests(state):
        if directory == rolled_back:
            continue
        pins = _pins(manifest)
        status = manifest.get("state", "pending")
        if status == "pending":
            if any(p in restored and pin != restored[p] for p, pin in pins.items()):
                set_state(directory, "superseded", superseded_by=rolled_back.name)
            continue
        if status != "superseded" or manifest.get("superseded_by") != rolled_back.name:
            continue
        matches = all(pin == _live_sha(path) for path, pin in pins.items())
        if matches and not _holds_any(directory, manifest, refused):
            set_state(directory, "pending", superseded_by=None)
            out.append(directory.name)
    prune(state, spare=rolled_back.name)
    return out


EditKey = tuple[str, str, str, str]  # file, then Edit.key(): op, anchor, content


def _edit(skill: object, edit: dict[str, Any]) -> EditKey | None:
    """``edit`` of file ``skill`` as the rejected-edit buffer tells edits apart (None: not an
    edit)."""
    try:
        return (str(skill), *Edit.from_json(edit).key())
    except (KeyError, ValueError, TypeError):
        return None


def _accepted_edits(directory: Path) -> set[EditKey] | None:
    """The edits a proposal makes (its report's accepted ones); None when its report is
    missing or damaged."""
    try:
        report = read_json(directory / "report.json", None)
    except StorageError:
        return None
    edits = report.get("edits", []) if isinstance(report, dict) else None
    if not isinstance(edits, list):
        return None
    keys = {
        _edit(e.get("skill", ""), e) for e in edits if isinstance(e, dict) and e.get("accepted")
    }
    return {key for key in keys if key is not None}


def _holds_any(directory: Path, manifest: dict[str, Any], refused: set[EditKey]) -> bool:
    """Whether the proposal in ``directory`` makes one of the ``refused`` edits: by its report's
    edits, or, without a readable report (a library caller staged none, or it was deleted or
    damaged), by any refused edit's text in its staged files (it may bring one back)."""
    edits = _accepted_edits(directory)
    if edits is not None:
        return bool(refused & edits)
    texts = []
    for entry in manifest.get("files", []):
        try:
            staged = staged_bytes(directory, entry)
        except (StorageError, KeyError, TypeError):
            return True  # unreadable: nothing shows it does not
        texts.append(" ".join(staged.decode("utf-8", "replace").split()))
    whole = "\n".join(texts)
    return any(edit[3] and edit[3] in whole for edit in refused)


def _refused_by_user(state: ProjectState) -> set[EditKey]:
    """The edits the user refused (``reject``, ``rollback``: step -1 in the rejected-edit
    buffer), which no proposal offered again may bring back; none when it cannot be read."""
    try:
        carry = read_json(state.optimizer_path, {}) or {}
    except StorageError:
        return set()
    refused = set()
    for skill, kept in carry.items():
        entries = kept.get("rejected", []) if isinstance(kept, dict) else []
        for entry in entries if isinstance(entries, list) else []:
            edit = entry.get("edit") if isinstance(entry, dict) else None
            if isinstance(edit, dict) and entry.get("step") == -1:
                key = _edit(skill, edit)
                if key is not None:
                    refused.add(key)
    return refused


def after_stage(state: ProjectState, staged: Path, keep: int = KEEP_SETTLED) -> None:
    """Supersede what ``staged`` wholly replaces (see the module doc), then prune."""
    proposals = _manifests(state)
    present = {d.name for d, _ in proposals}
    pins = _pins(load_manifest(staged))
    for directory, manifest in proposals:
        if directory == staged:
            continue
        state_now = manifest.get("state", "pending")
        if state_now == "superseded" and _orphaned(manifest, present):
            state_now = "pending"  # its newer proposal was discarded
            set_state(directory, "pending", superseded_by=None)
        if state_now != "pending" or directory.name > staged.name:
            continue
        theirs = _pins(manifest)
        if theirs and all(pins.get(path) == pin for path, pin in theirs.items()):
            set_state(directory, "superseded", superseded_by=staged.name)
    prune(state, keep, spare=staged.name)


def _orphaned(manifest: dict[str, Any], present: set[str]) -> bool:
    """Whether a superseded proposal may be offered again: the proposal that superseded it is
    gone and the live files are still the ones it was made from (an adopt pruned for its age
    left them changed: it stays superseded)."""
    if manifest.get("superseded_by") in present:
        return False
    return all(pin == _live_sha(path) for path, pin in _pins(manifest).items())


def prune(state: ProjectState, keep: int = KEEP_SETTLED, *, spare: str = "") -> list[str]:
    """Remove the proposals the module doc does not keep, and backups no adopt links to;
    ``spare`` (the proposal just settled, which its caller still reads) stays."""
    manifests = _manifests(state)
    settled = [d for d, m in manifests if m.get("state") in SETTLED]
    removed = []
    for directory in sorted(settled[: max(len(settled) - keep, 0)] + _old_adopts(manifests)):
        if directory.name == spare:
            continue
        _remove(state, directory)
        removed.append(directory.name)
    if removed:
        _collect_backups(state)
    return removed


def _old_adopts(manifests: list[tuple[Path, dict[str, Any]]]) -> list[Path]:
    """The adopted proposals beyond the newest :data:`KEEP_ADOPTED` that are no file's newest
    adopt."""
    adopted = sorted(
        ((d, m) for d, m in manifests if m.get("state") == "adopted"),
        key=lambda found: adopt_order(found[0].name, found[1]),
    )  # by adopt time: a proposal staged earlier can be adopted later
    newest = {path: directory for directory, manifest in adopted for path in _pins(manifest)}
    undo = set(newest.values())
    old = adopted[: max(len(adopted) - KEEP_ADOPTED, 0)]
    return [directory for directory, _ in old if directory not in undo]


def _remove(state: ProjectState, directory: Path) -> None:
    """Remove a proposal and its backups, but the user's text a forced rollback kept there."""
    backup = state.backup_dir(directory.name)
    if any(backup.glob(USERS_TEXT)):
        for saved in backup.iterdir():
            if not saved.match(USERS_TEXT):
                with contextlib.suppress(OSError):
                    saved.unlink()
    else:
        shutil.rmtree(backup, ignore_errors=True)
    shutil.rmtree(directory, ignore_errors=True)


def _collect_backups(state: ProjectState) -> None:
    """Remove stored backup contents no ``backups/<id>/NN.orig`` links to any more (a stored
    content's only link is then its own name). Where there are no hard links every ``NN.orig``
    is a copy of its own and the store only saves re-writing one, so removing is safe too."""
    from skillopt_sleep.stage.backup_store import STORE

    store = state.root / "backups" / STORE
    if not store.is_dir():
        return
    for stored in store.iterdir():
        with contextlib.suppress(OSError):
            if stored.is_file() and stored.stat().st_nlink == 1:
                stored.unlink()
