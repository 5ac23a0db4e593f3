"""Did the optimizer give us anything to work with? Read from the training history.

A run whose every reflection was dropped (the optimizer never answered with usable JSON edits)
must not end as "accepted edits (0)": it stops with :class:`~skillopt_core.errors.NoEvidenceError`.
A run where only some reflections were dropped carries on, with a warning. A reply that is empty
or a refusal is no answer at all (:func:`unusable_kind`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillopt_core.errors import NoEvidenceError

History = Sequence[Mapping[str, Any]]

REFUSALS = ("i can't help", "i cannot help", "i'm unable to", "i am unable to")
"""How a model's refusal starts (lower case): a reply that says nothing about the task."""


def unusable_kind(reply: str) -> str:
    """The kind of non-answer ``reply`` is ("empty reply" or "refusal"), or "" for an answer."""
    text = reply.strip()
    if not text:
        return "empty reply"
    if text.lower().startswith(REFUSALS):
        return "refusal"
    return ""


NO_EVIDENCE_HINT = (
    "check the optimizer backend and model: it must answer the reflection prompt with the JSON "
    "edits it asks for (see steps/*/patches.json for what came back)"
)


def _reflections(history: History) -> tuple[int, list[str]]:
    """(reflections made, reasons of those dropped) over every step of ``history``."""
    steps = [h for h in history if "dropped_minibatches" in h]
    dropped = [str(d) for h in steps for d in h["dropped_minibatches"]]
    made = sum(int(h.get("minibatches", len(h["dropped_minibatches"]))) for h in steps)
    return made, dropped


def unusable(history: History, optimizer: str = "the optimizer") -> NoEvidenceError | None:
    """The error to stop with when no reflection of the run came back usable, else None."""
    if any(h.get("proposed") for h in history):
        return None
    made, dropped = _reflections(history)
    if not dropped or len(dropped) < made:
        return None
    return NoEvidenceError(
        f"no usable edits: {optimizer} never returned usable edits "
        f"(all {len(dropped)} reflections dropped; first: {dropped[0]})",
        hint=NO_EVIDENCE_HINT,
    )


def dropped_warning(history: History) -> str:
    """A one-line warning when some reflections were dropped, else an empty string."""
    made, dropped = _reflections(history)
    if not dropped:
        return ""
    return f"{len(dropped)} of {made} reflections were dropped (first: {dropped[0]})"


def no_edit_warning(history: History) -> str:
    """A one-line warning when usable replies never proposed an edit, else an empty string: an
    optimizer asking for no change is an answer, not a failure, but "accepted edits (0)" alone
    would read as if edits had been tried and rejected."""
    made, dropped = _reflections(history)
    if not made or len(dropped) >= made or any(h.get("proposed") for h in history):
        return ""
    return f"the optimizer proposed no edit in any of {made - len(dropped)} usable reflections"
