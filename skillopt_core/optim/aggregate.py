"""Merge overlapping edits proposed by parallel reflections into one coherent patch set.

Minibatch reflections often propose the same fix in different words, or contradictory fixes to the
same passage. Merging happens in two levels: identical edits (same ``key()``) first, then edits in
conflict. Two edits conflict when they target the same anchor destructively (a delete or replace
against anything else at that anchor), or when the text one adds or removes is a near-duplicate of
the other's (token Jaccard >= ``threshold``). Two adds after the same anchor with different content
do not conflict: both can apply. Within a conflict the failure-driven edit wins (a fix for an
observed failure outranks a tidy-up suggested by a success), then higher support, then the earlier
proposal. Support is pooled, so agreement between reflections survives the merge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from skillopt_core.records import Edit, EditOp

DEFAULT_THRESHOLD = 0.6
RATIONALE_LIMIT = 300
FAILURE = "failure"

_TOKEN_RE = re.compile(r"\w+")
_END_ANCHORS = ("", "end")


def source_rank(edit: Edit) -> int:
    """0 for failure-driven edits, 1 otherwise (success-driven or anything else)."""
    return 0 if edit.source == FAILURE else 1


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN_RE.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    """Token-set Jaccard similarity; 0.0 when either side has no tokens."""
    sa, sb = set(_tokens(a)), set(_tokens(b))
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def _same_anchor(a: str, b: str) -> bool:
    """Equal token sequences, or one contained in the other (they overlap in the document)."""
    ta, tb = " ".join(_tokens(a)), " ".join(_tokens(b))
    if ta in _END_ANCHORS or tb in _END_ANCHORS:
        return False
    return f" {ta} " in f" {tb} " or f" {tb} " in f" {ta} "


def _texts(edit: Edit) -> list[str]:
    """What an edit puts into or takes out of the document."""
    texts = [edit.content] if edit.op is not EditOp.DELETE else []
    if edit.op is not EditOp.ADD:
        texts.append(edit.anchor)
    return texts


def conflicts(a: Edit, b: Edit, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether ``a`` and ``b`` overlap so that only one of them should be applied."""
    both_add = a.op is EditOp.ADD and b.op is EditOp.ADD
    if not both_add and _same_anchor(a.anchor, b.anchor):
        return True
    return any(jaccard(x, y) >= threshold for x in _texts(a) for y in _texts(b))


def _priority(item: tuple[int, Edit]) -> tuple[int, int, int]:
    index, edit = item
    return (source_rank(edit), -edit.support, index)


def _brief(rationales: Sequence[str]) -> str:
    unique = list(dict.fromkeys(r.strip() for r in rationales if r.strip()))
    text = "; ".join(unique)
    return text if len(text) <= RATIONALE_LIMIT else text[: RATIONALE_LIMIT - 1].rstrip() + "…"


def _merge(members: list[tuple[int, Edit]]) -> tuple[int, Edit]:
    """One edit for a group: the winner's text, pooled support, brief joint rationale."""
    ranked = sorted(members, key=_priority)
    winner = ranked[0][1]
    merged = replace(
        winner,
        support=sum(edit.support for _, edit in members),
        rationale=_brief([edit.rationale for _, edit in ranked]),
    )
    return min(index for index, _ in members), merged


def aggregate(edits: Sequence[Edit], threshold: float = DEFAULT_THRESHOLD) -> list[Edit]:
    """Merge duplicates and conflicts; the result keeps the order of first proposal."""
    by_key: dict[tuple[str, str, str], list[tuple[int, Edit]]] = {}
    for index, edit in enumerate(edits):
        by_key.setdefault(edit.key(), []).append((index, edit))
    level_one = [_merge(members) for members in by_key.values()]

    # Greedy clustering in priority order, comparing with each cluster's winner only: chains
    # (A~B, B~C, A!~C) must not swallow C, since B is dropped in favour of A anyway.
    clusters: list[list[tuple[int, Edit]]] = []
    for item in sorted(level_one, key=_priority):
        for cluster in clusters:
            if conflicts(cluster[0][1], item[1], threshold):
                cluster.append(item)
                break
        else:
            clusters.append([item])
    merged = [_merge(cluster) for cluster in clusters]
    return [edit for _, edit in sorted(merged, key=lambda item: item[0])]
