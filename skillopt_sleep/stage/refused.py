"""What the rejected-edit buffers hold, as the user sees it, and forgetting part of it.

Each skill file's buffer (``optimizer.json``: ``{skill: {"rejected": [entry, ...]}}``) holds the
edits no later night may propose: the user's refusals (``reject``, ``rollback``: ``step`` -1,
their rationale prefixed by :data:`~.refusal.REJECTED` or :data:`~.refusal.ROLLED_BACK`) and the
gate's (the optimizer's own rejections, compacted and capped each night). An edit is one
:class:`RefusedEdit` however many entries name it (an edit the gate refused and the user then
rejected has two); its id hashes the skill file and :meth:`~skillopt_core.records.Edit.key`, so
it is the same on every run and on every machine that holds the same buffer.

Pure: the engine's API (:func:`skillopt_sleep.engine.api.refused`, ``forget_refused``) reads
and writes the file under the project's lock.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from skillopt_core.errors import UsageError
from skillopt_core.optim.buffer import RejectedBuffer, RejectedEdit
from skillopt_core.records import Edit
from skillopt_sleep.stage.refusal import REJECTED, ROLLED_BACK

ID_LENGTH = 10  # hex digits of sha256: a collision needs about a million refused edits
USER_REJECTED = "you: rejected"
USER_ROLLED_BACK = "you: rolled back"
USER = "you"  # a step -1 entry of neither kind (written by hand, or by an older version)
GATE = "the gate"
LIST_HINT = "list them with `skillopt-sleep refused`"

Who = Literal["you", "gate"]
EditKey = tuple[str, str, str]


@dataclass(frozen=True)
class RefusedEdit:
    """One edit a skill file's buffer keeps from later nights.

    ``by``: "you: rejected", "you: rolled back" (or "you") for the user's refusals, which are
    kept for good; "the gate" for the optimizer's own, kept while among the newest. ``blocks``:
    whether no night proposes it now (always, for the user's; for the gate's, once it was
    rejected on its own or twice; else the optimizer is only warned about it). ``delta``: the
    gate's last score change for it (candidate minus current), None when the gate never weighed
    it. ``rationale``: why the optimizer proposed it (without the user's prefix)."""

    id: str
    skill: str
    by: str
    op: str
    anchor: str
    content: str
    rationale: str
    blocks: bool
    delta: float | None = None

    @property
    def by_user(self) -> bool:
        return self.by != GATE


@dataclass(frozen=True)
class ForgetResult:
    """What ``forget_refused`` removed; ``message`` says what recovering an interrupted adopt or
    rollback did first, if anything."""

    forgotten: tuple[RefusedEdit, ...]
    message: str = ""


def edit_id(skill: str, key: EditKey) -> str:
    """The short, stable id of the edit ``key`` in the buffer of ``skill``."""
    text = "\0".join((skill, *key))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ID_LENGTH]


def _user_label(rationale: str) -> str:
    if rationale.startswith(ROLLED_BACK):
        return USER_ROLLED_BACK
    if rationale.startswith(REJECTED):
        return USER_REJECTED
    return USER


def _own_rationale(rationale: str) -> str:
    for prefix in (ROLLED_BACK, REJECTED):
        if rationale.startswith(f"{prefix}: "):
            return rationale[len(prefix) + 2 :]
    return rationale


def _parsed(entry: Any) -> tuple[Edit, float | None, int, bool] | None:
    """An entry as (edit, delta, step, alone), or None when it is not one (damaged by hand): it
    is neither listed nor forgotten, and stays as it is. A delta that is missing or not a finite
    number is None (never 0.0, which reads as a score, nor NaN, which is no JSON)."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("edit"), Mapping):
        return None
    try:
        edit = Edit.from_json(entry["edit"])
        raw = entry.get("delta")
        delta = float(raw) if isinstance(raw, (int, float)) and math.isfinite(raw) else None
        return edit, delta, int(entry.get("step", 0)), bool(entry.get("alone"))
    except (KeyError, TypeError, ValueError):
        return None


def _buffers(carry: Mapping[str, Any]) -> Iterable[tuple[str, list[Any]]]:
    for skill, kept in carry.items():
        entries = kept.get("rejected") if isinstance(kept, Mapping) else None
        if isinstance(entries, list):
            yield str(skill), entries


def refused_edits(carry: Mapping[str, Any]) -> tuple[RefusedEdit, ...]:
    """Every edit the buffers in ``carry`` (``optimizer.json`` as read) hold, one per skill file
    and :meth:`Edit.key`, by skill file and then in the order of its last refusal (the newest
    last). The user's refusal names it when there is one, and its latest says how."""
    found: list[RefusedEdit] = []
    for skill, entries in _buffers(carry):
        readable = [p for p in map(_parsed, entries) if p is not None]
        blocked = RejectedBuffer(
            RejectedEdit(e, d or 0.0, st, a) for e, d, st, a in readable
        ).blocked_keys()
        latest: dict[EditKey, Edit] = {}
        users: dict[EditKey, str] = {}
        deltas: dict[EditKey, float | None] = {}
        for edit, delta, step, _alone in readable:
            key = edit.key()
            if step == -1:
                users[key] = _user_label(edit.rationale)
            else:
                deltas[key] = delta
            latest.pop(key, None)  # re-inserted: ordered by last refusal
            latest[key] = edit
        for key, edit in latest.items():
            found.append(
                RefusedEdit(
                    id=edit_id(skill, key),
                    skill=skill,
                    by=users.get(key, GATE),
                    op=edit.op.value,
                    anchor=edit.anchor,
                    content=edit.content,
                    rationale=_own_rationale(edit.rationale),
                    blocks=key in users or key in blocked,
                    delta=deltas.get(key),
                )
            )
    return tuple(found)


def of_kind(edits: Iterable[RefusedEdit], by: Who | None) -> tuple[RefusedEdit, ...]:
    """The user's refusals (``by`` "you"), the gate's ("gate"), or all of ``edits`` (None)."""
    if by not in (None, "you", "gate"):
        raise UsageError(f"--by takes you or gate, not {by!r}", hint="--by you, or --by gate")
    return tuple(e for e in edits if by is None or e.by_user == (by == "you"))


def chosen(
    edits: Iterable[RefusedEdit],
    ids: Iterable[str] = (),
    *,
    all_: bool = False,
    by: Who | None = None,
) -> tuple[RefusedEdit, ...]:
    """The edits to forget: those ``ids`` name, or with ``all_`` every one (only the user's or
    only the gate's with ``by``). An id none of ``edits`` has is a UsageError naming it; so are
    no id without ``all_``, and ids with it (which of the two was meant?)."""
    every = tuple(edits)
    wanted = list(dict.fromkeys(i.strip().lower() for i in ids))
    if all_ and wanted:
        raise UsageError(
            "name refused edits by id, or forget them all with --all, not both",
            hint="drop --all to forget only the ids named",
        )
    if by is not None and not all_:
        raise UsageError(
            "--by chooses which refused edits --all forgets; an id names one itself",
            hint="add --all, or drop --by",
        )
    if all_:
        return of_kind(every, by)
    if not wanted:
        raise UsageError(
            "no refused edit named",
            hint=f"pass the ids of the edits to forget ({LIST_HINT}), or --all for every one",
        )
    by_id = {e.id: e for e in every}
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        from skillopt_sleep._display import displayable

        shown = ", ".join(repr(i[:40]) for i in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise UsageError(
            displayable(f"no refused edit has the id {shown}; nothing was forgotten"),
            hint=LIST_HINT,
        )
    return tuple(by_id[i] for i in wanted)


def without(carry: dict[str, Any], forgotten: Iterable[RefusedEdit]) -> dict[str, Any]:
    """``carry`` with every entry of the ``forgotten`` edits removed from its skill file's
    buffer (entries it cannot read stay, as does everything else it holds)."""
    ids = {edit.id for edit in forgotten}
    for skill, entries in _buffers(carry):
        kept = []
        for entry in entries:
            parsed = _parsed(entry)
            if parsed is None or edit_id(skill, parsed[0].key()) not in ids:
                kept.append(entry)
        if len(kept) != len(entries):
            carry[skill]["rejected"] = kept
    return carry
