"""The engine's library API besides ``run_night``: adopt / reject / rollback and the refused
edits (this module), status and proposals (:mod:`.views`), reports (:mod:`.report_view`), all
importable from here.

Never prints; raises :mod:`skillopt_core.errors` classes that carry their exit codes. Each
command first recovers an adopt or rollback cut short; what that did is in its message, or in
its error when the command then fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from skillopt_core.errors import SkillOptError
from skillopt_sleep.engine.records import AdoptResult
from skillopt_sleep.engine.report_view import read_report, report_path
from skillopt_sleep.engine.state import ProjectState
from skillopt_sleep.engine.views import backend_health, interrupted, list_proposals, status

if TYPE_CHECKING:
    from collections.abc import Iterable

    from skillopt_sleep.stage.refused import ForgetResult, RefusedEdit, Who

__all__ = [
    "adopt",
    "backend_health",
    "forget_refused",
    "interrupted",
    "list_proposals",
    "read_report",
    "refused",
    "reject",
    "report_path",
    "rollback",
    "status",
    "three_way_diff",
]

PathLike = str | os.PathLike[str]


@contextmanager
def _telling(recovered: list[str]) -> Iterator[None]:
    """An error of the command that follows a recovery also says what the recovery did (the
    live files it restored), which its result would have said."""
    try:
        yield
    except SkillOptError as exc:
        if recovered:
            exc.args = (f"{exc.message}; before that, {'; '.join(recovered)}", *exc.args[1:])
        raise


def adopt(
    project: PathLike,
    proposal: str | None = None,
    *,
    force: bool = False,
    home: Path | None = None,
) -> AdoptResult:
    """Replace the live files with the proposal; the message first says what recovering an
    interrupted transaction did, if anything. ``home`` (default: the user's) holds the user
    skill roots, as for ``run_night``: a file a link leads to outside the project and them is
    refused unless ``force``."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep adopt"):
        recovered = [r.message for r in transaction.recover(state)]
        with _telling(recovered):
            name, files, backup = transaction.adopt(state, proposal, force=force, home=home)
    message = "; ".join([*recovered, "live files replaced; backup kept"])
    return AdoptResult(name, "adopted", tuple(files), str(backup), message)


def rollback(project: PathLike, proposal: str | None = None, *, force: bool = False) -> AdoptResult:
    """Restore what the latest (or the named) adopt replaced. An interrupted adopt of it is
    undone by the recovery alone: that is the rollback, and its message says so; so is a
    rollback the recovery finished (one killed, or whose edits were not refused yet). A live
    file changed since the adopt is refused (DriftError) unless ``force``, which keeps it first.
    Like ``reject``, the proposal's edits go to the rejected-edit buffer: the next night
    proposed them again, word for word."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep rollback"):
        recovered = transaction.recover(state, give_up=proposal)
        closed = [r for r in recovered if r.damaged and r.proposal == proposal]
        if closed:  # the user checked the files an unfinishable adopt or rollback left
            last = closed[-1]
            part = "a backup of it" if last.backup else "its proposal"
            note = (
                f"closed the interrupted {last.action} of {last.proposal}, as {part} is damaged "
                f"({last.damaged}): the live files stay as they are now"
            )
            return AdoptResult(last.proposal, "rolled back", (), "", note)
        undone = [
            r
            for r in recovered
            if proposal in (None, r.proposal)
            and not r.damaged
            and (r.action == "rollback" or not r.repaired)
        ]
        told = [r.message for r in recovered]
        if undone:
            last = undone[-1]
            with _telling(told):
                transaction.refuse_edits(state, last.proposal, transaction.ROLLED_BACK)
            backup = str(state.backup_dir(last.proposal))
            return AdoptResult(last.proposal, "rolled back", last.files, backup, "; ".join(told))
        with _telling(told):
            name, files, backup_dir, also = transaction.rollback(state, proposal, force=force)
    kept = sorted(p.name for p in backup_dir.glob("*.at-rollback"))
    done = "restored byte for byte" + (
        f"; the changed files were kept as {', '.join(kept)} in {backup_dir}" if kept else ""
    )
    later = [f"also rolled back {', '.join(also)}, adopted over it since"] if also else []
    message = "; ".join([*told, done, *later])
    return AdoptResult(name, "rolled back", tuple(files), str(backup_dir), message)


def reject(project: PathLike, proposal: str | None = None) -> AdoptResult:
    """Mark the proposal rejected and keep its edits from later nights
    (:func:`~skillopt_sleep.stage.transaction.refuse_edits`). An interrupted adopt is undone
    first, as by every other command: rejected while its adopt was cut short, a proposal left
    its text in the live files, and the next command's recovery made it pending again."""
    from skillopt_sleep.stage import transaction

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep reject"):
        recovered = [r.message for r in transaction.recover(state)]
        with _telling(recovered):
            name, manifest = transaction.reject(state, proposal)
    files = tuple(f["live_path"] for f in manifest["files"])
    return AdoptResult(name, "rejected", files, message="; ".join(recovered))


def refused(project: PathLike, *, by: Who | None = None) -> tuple[RefusedEdit, ...]:
    """The edits the rejected-edit buffers keep from later nights, one per skill file and edit
    (:func:`~skillopt_sleep.stage.refused.refused_edits`); ``by`` "you" or "gate" keeps only
    the user's refusals or only the gate's. Read without the lock, as ``status`` reads: a night
    replaces ``optimizer.json`` in one rename. A project without state has none."""
    from skillopt_sleep.engine.state import read_json
    from skillopt_sleep.stage.refused import of_kind, refused_edits

    carry = read_json(ProjectState(project).optimizer_path, {}) or {}
    return of_kind(refused_edits(carry), by)


def forget_refused(
    project: PathLike,
    ids: Iterable[str] = (),
    *,
    all_: bool = False,
    by: Who | None = None,
) -> ForgetResult:
    """Remove the refused edits ``ids`` names (or, with ``all_``, every one; ``by`` "you" or
    "gate" keeps that to the user's or the gate's) from the rejected-edit buffers, so a later
    night may propose them again. All or nothing: an unknown id is a UsageError and nothing is
    forgotten. Under the project's lock, like ``reject``: a night reads the buffers when it
    starts and writes them when it ends, and would put back what was forgotten in between.
    The proposals that held the edits keep their state (a rejected one stays rejected)."""
    from skillopt_sleep.engine.state import read_json, write_json
    from skillopt_sleep.stage import transaction
    from skillopt_sleep.stage.refused import ForgetResult, chosen, refused_edits, without

    state = ProjectState(project)
    with state.night_lock("skillopt-sleep refused forget"):
        # first, as every command: a rollback cut short refuses its edits when it is finished
        recovered = [r.message for r in transaction.recover(state)]
        with _telling(recovered):
            carry = read_json(state.optimizer_path, {}) or {}
            gone = chosen(refused_edits(carry), ids, all_=all_, by=by)
            if gone:
                write_json(state.optimizer_path, without(carry, gone))
    return ForgetResult(gone, "; ".join(recovered))


def three_way_diff(project: PathLike, proposal: str | None = None) -> str:
    from skillopt_sleep.stage.transaction import three_way

    return three_way(ProjectState(project), proposal)
