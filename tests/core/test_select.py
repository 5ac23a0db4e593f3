"""Ranking and clipping edits to the step budget."""

from __future__ import annotations

from skillopt_core.optim.select import rank_edits, select_edits
from skillopt_core.records import Edit, EditOp


def edit(content: str, support: int = 1, source: str = "failure") -> Edit:
    return Edit(EditOp.ADD, "", content, support=support, source=source)


def test_rank_by_support_then_failure_then_order() -> None:
    a = edit("a", 1, "success")
    b = edit("b", 3, "success")
    c = edit("c", 1, "failure")
    d = edit("d", 3, "failure")
    e = edit("e", 1, "failure")
    assert rank_edits([a, b, c, d, e]) == [d, b, c, e, a]


def test_clip_to_budget() -> None:
    edits = [edit(str(i), support=i) for i in range(6)]
    assert [e.content for e in select_edits(edits, 2)] == ["5", "4"]
    assert select_edits(edits, 0) == []
    assert select_edits(edits, -1) == []
    assert len(select_edits(edits, 100)) == 6


def test_rejected_keys_are_dropped_before_clipping() -> None:
    edits = [edit("bad rule", 5), edit("good rule", 2), edit("other", 1)]
    chosen = select_edits(edits, 2, rejected_keys={edits[0].key()})
    assert [e.content for e in chosen] == ["good rule", "other"]


def test_rejected_keys_match_whitespace_folded_and_from_json_lists() -> None:
    edits = [edit("bad   rule", 5), edit("good rule", 2)]
    rejected = [["add", "", "bad rule\n"]]
    chosen = select_edits(edits, 4, rejected_keys=rejected)  # type: ignore[arg-type]
    assert [e.content for e in chosen] == ["good rule"]


def test_duplicate_keys_are_selected_once() -> None:
    edits = [edit("same", 2), edit("same ", 1), edit("other", 1)]
    assert [e.content for e in select_edits(edits, 2)] == ["same", "other"]


def test_deterministic() -> None:
    edits = [edit(str(i % 3), support=i % 2) for i in range(9)]
    assert select_edits(edits, 3) == select_edits(list(edits), 3)
