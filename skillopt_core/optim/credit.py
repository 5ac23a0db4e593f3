"""Credit inside a rejected bundle: judge each edit on its own evidence before blaming it.

The gate judges a step's edits together. When the bundle is rejected, every edit in it used to
enter the rejected-edit buffer with the bundle's delta, so a good edit rejected beside a harmful
one could be blocked for ever. Here each edit of a rejected bundle is re-gated alone against the
current skill (up to ``limit`` re-gates, the step's edit budget):

- edits that improve alone are kept, and the kept ones are gated together; if that combination
  is rejected, the best single edit (already accepted alone) is taken instead;
- edits that do not improve alone enter the buffer with *their own* delta, marked ``alone``: an
  edit is recorded as harmful only on its own evidence (an edit the size budget refuses alone,
  unweighed, has none, nor has one that changes nothing alone: neither is kept nor blamed);
- edits left unchecked (limit or call budget reached) keep the bundle's delta, as before.

When the call budget runs out part-way, the outcome says so (``stopped``, and ``budget`` holds the
error). The trainer then does not commit the step: it stops with that error, and a resumed run
redoes the step (its evaluations are cached), so it ends as an uninterrupted run would.

An accepted bundle can carry a harmful edit that the others outweigh. :func:`prune_bundle`
gates the bundle leave-one-out: an edit whose removal scores higher than the whole bundle is
dropped and blamed with its own (negative) contribution, so it cannot ride along.

Pure over a ``gate`` callable, so it is tested without a trainer or a backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillopt_core.backends._protocol import BudgetExceeded
from skillopt_core.records import Decision, Edit
from skillopt_core.skill import apply_edits

Gate = Callable[[str], tuple[Decision, float]]
"""Gate a candidate skill text against the current skill: (decision, candidate - current)."""

Refusal = Callable[[str], str]
"""Why a candidate skill text is refused unweighed ("" when it is weighed)."""


@dataclass(frozen=True)
class EditCredit:
    edit: Edit
    delta: float  # the edit alone, minus the current skill, on the gate metric
    improves: bool  # the gate would accept the edit alone
    refused: str = ""  # why the edit alone was refused unweighed (the size budget): no evidence


@dataclass(frozen=True)
class CreditOutcome:
    singles: tuple[EditCredit, ...]  # every edit re-gated alone, in bundle order
    unchecked: tuple[Edit, ...]  # not re-gated (limit or call budget reached)
    accepted: tuple[EditCredit, ...]  # edits the step takes after all
    skill: str | None  # the skill with the accepted edits applied (None: nothing accepted)
    stopped: bool = False  # the call budget ran out while re-gating
    budget: BudgetExceeded | None = field(default=None, compare=False)  # why it stopped

    @property
    def blamed(self) -> tuple[EditCredit, ...]:
        """Edits that did not improve alone: rejected on their own evidence (for the buffer).
        An edit that improved alone but was not taken, or that was refused alone unweighed (the
        size budget), is neither blamed nor kept."""
        return tuple(c for c in self.singles if not c.improves and not c.refused)

    def to_json(self) -> dict[str, Any]:
        return {
            "singles": [
                {
                    **c.edit.to_json(),
                    "delta": round(c.delta, 6),
                    "improves": c.improves,
                    **({"refused": c.refused} if c.refused else {}),
                }
                for c in self.singles
            ],
            "unchecked": [e.to_json() for e in self.unchecked],
            "accepted": [c.edit.to_json() for c in self.accepted],
            "stopped": self.stopped,
        }


def _weighed(text: str) -> str:
    return ""


def assign_credit(
    skill: str, edits: Sequence[Edit], gate: Gate, limit: int, refuse: Refusal = _weighed
) -> CreditOutcome:
    """Re-gate the edits of a rejected bundle one by one (see the module docstring). ``refuse``
    says why a candidate is refused before any evaluation (the size budget, gate.over_budget):
    such an edit is not blamed, since nothing was weighed against it."""
    singles: list[EditCredit] = []
    stopped: BudgetExceeded | None = None
    for edit in edits[: max(0, limit)]:
        candidate = apply_edits(skill, [edit]).text
        if candidate == skill:  # nothing to weigh: it only acts beside another edit (or never)
            singles.append(EditCredit(edit, 0.0, False, "it changes nothing alone"))
            continue
        refused = refuse(candidate)
        if refused:
            singles.append(EditCredit(edit, 0.0, False, refused))
            continue
        try:
            decision, delta = gate(candidate)
        except BudgetExceeded as exc:
            stopped = exc
            break
        singles.append(EditCredit(edit, delta, decision.accepted))
    unchecked = tuple(edits[len(singles) :])
    kept = [c for c in singles if c.improves]
    if not kept:
        return CreditOutcome(tuple(singles), unchecked, (), None, stopped is not None, stopped)
    best = max(kept, key=lambda c: c.delta)
    chosen: tuple[EditCredit, ...] = (best,)
    if len(kept) > 1 and stopped is None:
        together = apply_edits(skill, [c.edit for c in kept]).text
        try:
            decision, delta = gate(together)
        except BudgetExceeded as exc:
            stopped = exc
        else:
            if decision.accepted and delta >= best.delta:
                chosen = tuple(kept)
    text = apply_edits(skill, [c.edit for c in chosen]).text
    return CreditOutcome(tuple(singles), unchecked, chosen, text, stopped is not None, stopped)


@dataclass(frozen=True)
class Pruned:
    kept: tuple[Edit, ...]  # the bundle's edits that stay
    dropped: tuple[EditCredit, ...]  # removing it scored higher: its contribution is negative
    skill: str  # the skill with the kept edits applied
    stopped: bool = False
    budget: BudgetExceeded | None = field(default=None, compare=False)  # why it stopped


def prune_bundle(
    skill: str, edits: Sequence[Edit], candidate: str, delta: float, gate: Gate, limit: int
) -> Pruned:
    """Leave-one-out over an accepted bundle (``candidate`` = ``skill`` + ``edits``, which scored
    ``delta`` over ``skill``). Falls back to the whole bundle if the pruned one is not accepted."""
    dropped: list[EditCredit] = []
    for edit in edits[: max(0, limit)]:
        rest = [e for e in edits if e is not edit]
        try:
            _, without = gate(apply_edits(skill, rest).text)
        except BudgetExceeded as exc:
            return Pruned(tuple(edits), (), candidate, True, exc)
        if without > delta:
            dropped.append(EditCredit(edit, delta - without, False))
    if not dropped:
        return Pruned(tuple(edits), (), candidate)
    gone = {c.edit.key() for c in dropped}
    kept = tuple(e for e in edits if e.key() not in gone)
    text = apply_edits(skill, kept).text
    try:
        decision, pruned_delta = gate(text)
    except BudgetExceeded as exc:
        return Pruned(tuple(edits), (), candidate, True, exc)
    if not kept or not decision.accepted or pruned_delta < delta:
        return Pruned(tuple(edits), (), candidate)
    return Pruned(kept, tuple(dropped), text)
