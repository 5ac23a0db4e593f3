"""Rank candidate edits and clip them to this step's textual learning rate."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from skillopt_core.optim.aggregate import source_rank
from skillopt_core.records import Edit

EditKey = tuple[str, str, str]


def _fold(key: Sequence[str]) -> EditKey:
    """Normalise a key as ``Edit.key()`` does; keys reloaded from JSON arrive as lists."""
    op, anchor, content = key
    return (op, " ".join(anchor.split()), " ".join(content.split()))


def rank_edits(edits: Sequence[Edit]) -> list[Edit]:
    """Most-supported first, failure-driven before success-driven, then proposal order."""
    order = sorted(
        enumerate(edits), key=lambda item: (-item[1].support, source_rank(item[1]), item[0])
    )
    return [edit for _, edit in order]


def select_edits(
    edits: Sequence[Edit], budget: int, rejected_keys: Collection[EditKey] = ()
) -> list[Edit]:
    """The top ``budget`` edits, never one the gate already rejected (the rejected-edit buffer)
    and never the same edit twice."""
    seen = {_fold(key) for key in rejected_keys}
    chosen: list[Edit] = []
    for edit in rank_edits(edits):
        if len(chosen) >= budget:
            break
        if edit.key() in seen:
            continue
        seen.add(edit.key())
        chosen.append(edit)
    return chosen
