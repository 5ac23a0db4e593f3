"""What refuses an adopt or rollback before it writes anything, and the way out it names:
the proposal asked for, a live file that drifted since staging or changed since the adopt, a
file a link leads to outside the project; and the three-way diff a forced adopt shows."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from skillopt_core.errors import DriftError, UsageError
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.stage._live import adopted_over, read_live
from skillopt_sleep.stage.proposal import link_note, load_manifest, readable_manifest, staged_bytes


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


def refuse_outside(state: ProjectState, files: list[dict[str, Any]], home: Path) -> None:
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


def drift_error(proposal: str, changed: list[tuple[str, str]]) -> DriftError:
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


def changed_error(state: ProjectState, directory: Path, changed: list[str]) -> DriftError:
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
