"""Which staged proposals stay offered, and how many settled ones are kept, night after night.

A proposal pins the sha256 of each live file it was made from, so of several pending proposals
for one file only the one adopted first can still be adopted; the others would be refused as
drifted (and ``adopt --force`` would put back text without the edits just adopted). So:

- adopting a proposal marks every other pending proposal for one of its files that was made
  from other bytes than the file now holds ``superseded`` (``superseded_by`` names the adopt);
  rolling that adopt back makes them ``pending`` again where the live files match them again;
- staging a proposal supersedes the older pending ones it wholly replaces: every file of theirs
  is in the new one, made from the same bytes. A user who never adopts then has one pending
  proposal, not one per night; a superseded proposal whose newer one is gone (a killed night's
  proposal, discarded by the next night) is pending again when the next proposal is staged;
- settled proposals (rejected, superseded, rolled back) beyond the newest :data:`KEEP_SETTLED`
  are removed with their backups (after each stage, reject and rollback); pending and adopted ones are never removed (rollback reads
  an adopted one's manifest and backups). Backup contents no adopt links to any more go too.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any

from skillopt_core.errors import StorageError
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.stage.proposal import load_manifest, set_state, sha256

KEEP_SETTLED = 30
SETTLED = ("rejected", "superseded", "rolled back")


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
    """Offer again what the adopt of ``rolled_back`` superseded, where nothing has drifted."""
    out = []
    for directory, manifest in _manifests(state):
        if manifest.get("state") != "superseded":
            continue
        if manifest.get("superseded_by") != rolled_back.name:
            continue
        if all(pin == _live_sha(path) for path, pin in _pins(manifest).items()):
            set_state(directory, "pending", superseded_by=None)
            out.append(directory.name)
    prune(state, spare=rolled_back.name)
    return out


def after_stage(state: ProjectState, staged: Path, keep: int = KEEP_SETTLED) -> None:
    """Supersede what ``staged`` wholly replaces (see the module doc), then prune."""
    proposals = _manifests(state)
    present = {d.name for d, _ in proposals}
    pins = _pins(load_manifest(staged))
    for directory, manifest in proposals:
        if directory == staged:
            continue
        state_now = manifest.get("state", "pending")
        if state_now == "superseded" and manifest.get("superseded_by") not in present:
            state_now = "pending"  # its newer proposal was discarded
            set_state(directory, "pending", superseded_by=None)
        if state_now != "pending" or directory.name > staged.name:
            continue
        theirs = _pins(manifest)
        if theirs and all(pins.get(path) == pin for path, pin in theirs.items()):
            set_state(directory, "superseded", superseded_by=staged.name)
    prune(state, keep, spare=staged.name)


def prune(state: ProjectState, keep: int = KEEP_SETTLED, *, spare: str = "") -> list[str]:
    """Remove settled proposals beyond the newest ``keep``, and backups no adopt links to;
    ``spare`` (the proposal just settled, which its caller still reads) stays."""
    settled = [d for d, m in _manifests(state) if m.get("state") in SETTLED]
    removed = []
    for directory in settled[: max(len(settled) - keep, 0)]:
        if directory.name == spare:
            continue
        shutil.rmtree(state.backup_dir(directory.name), ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)
        removed.append(directory.name)
    if removed:
        _collect_backups(state)
    return removed


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
