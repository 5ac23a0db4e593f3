"""Hierarchical merge of overlapping edits."""

from __future__ import annotations

import random

from skillopt_core.optim.aggregate import RATIONALE_LIMIT, aggregate, conflicts, jaccard
from skillopt_core.records import Edit, EditOp


def add(
    anchor: str, content: str, support: int = 1, source: str = "failure", why: str = ""
) -> Edit:
    return Edit(EditOp.ADD, anchor, content, why, support, source)


def test_empty() -> None:
    assert aggregate([]) == []


def test_identical_keys_merge_with_summed_support() -> None:
    edits = [
        add("", "Check the units.", 2, "success", "units were wrong"),
        add("", "Check   the units.", 1, "failure", "unit error"),
    ]
    (merged,) = aggregate(edits)
    assert merged.support == 3
    assert merged.source == "failure"
    assert merged.content == "Check   the units."
    assert merged.rationale == "unit error; units were wrong"


def test_same_anchor_conflict_failure_wins_over_support() -> None:
    edits = [
        Edit(EditOp.DELETE, "Answer briefly.", "", "not needed", 5, "success"),
        Edit(
            EditOp.REPLACE, "- answer briefly", "Answer in one sentence.", "too long", 1, "failure"
        ),
    ]
    (merged,) = aggregate(edits)
    assert merged.op is EditOp.REPLACE
    assert merged.support == 6
    assert merged.rationale == "too long; not needed"


def test_near_duplicate_content_merges_higher_support_wins() -> None:
    edits = [
        add("## Rules", "Always cite the passage you used.", 1),
        add("", "Always cite the passage used.", 3),
    ]
    (merged,) = aggregate(edits)
    assert merged.content == "Always cite the passage used."
    assert merged.support == 4


def test_ties_go_to_the_earlier_edit() -> None:
    edits = [add("", "Always cite the passage used."), add("", "always cite the passage used!")]
    (merged,) = aggregate(edits)
    assert merged.content == "Always cite the passage used."
    assert merged.support == 2


def test_adds_after_the_same_anchor_with_different_content_both_survive() -> None:
    edits = [add("## Rules", "Check units."), add("## Rules", "Quote exact words.")]
    assert aggregate(edits) == edits


def test_end_adds_are_not_the_same_anchor() -> None:
    edits = [add("", "Check units."), add("END", "Quote exact words.")]
    assert aggregate(edits) == edits


def test_delete_versus_readding_the_same_rule_conflicts() -> None:
    delete = Edit(EditOp.DELETE, "Always cite sources.", source="success", support=2)
    readd = add("", "Always cite your sources.")
    assert conflicts(delete, readd)
    (merged,) = aggregate([delete, readd])
    assert merged.op is EditOp.ADD and merged.support == 3


def test_overlapping_anchors_conflict() -> None:
    a = Edit(EditOp.DELETE, "Answer briefly. Cite the passage.")
    b = Edit(EditOp.REPLACE, "Cite the passage", "Cite the paragraph number.")
    assert conflicts(a, b)


def test_no_chaining_through_a_dropped_edit() -> None:
    winner = Edit(EditOp.REPLACE, "Rule A.", "Rule A, stricter.", support=3)
    loser = Edit(EditOp.REPLACE, "Rule B.", "Rule A, stricter!", support=2)
    bystander = Edit(EditOp.DELETE, "Rule B.", support=1)
    # bystander conflicts only with loser, which the winner absorbs: bystander must survive.
    assert conflicts(winner, loser) and conflicts(loser, bystander)
    assert not conflicts(winner, bystander)
    merged = aggregate([winner, loser, bystander])
    assert merged == [
        Edit(EditOp.REPLACE, "Rule A.", "Rule A, stricter.", support=5),
        bystander,
    ]


def test_output_keeps_order_of_first_proposal() -> None:
    edits = [
        add("", "First rule here.", 1, "success"),
        add("", "Second distinct rule.", 5),
        add("", "First rule here!", 2),
    ]
    merged = aggregate(edits)
    assert [e.content for e in merged] == ["First rule here!", "Second distinct rule."]


def test_rationale_is_kept_brief() -> None:
    edits = [add("", "Same rule.", why=f"reason {i} " + "x" * 100) for i in range(10)]
    (merged,) = aggregate(edits)
    assert len(merged.rationale) <= RATIONALE_LIMIT
    assert merged.support == 10


def test_deterministic_and_support_is_conserved() -> None:
    rng = random.Random(7)
    words = ["cite", "units", "answer", "brief", "exact", "quote", "check", "rule"]
    edits = [
        Edit(
            rng.choice(list(EditOp)),
            " ".join(rng.sample(words, 2)),
            " ".join(rng.sample(words, 3)),
            support=rng.randint(1, 3),
            source=rng.choice(["failure", "success"]),
        )
        for _ in range(40)
    ]
    first = aggregate(edits)
    assert first == aggregate(list(edits))
    assert sum(e.support for e in first) == sum(e.support for e in edits)
    assert len({e.key() for e in first}) == len(first)


def test_jaccard() -> None:
    assert jaccard("a b c", "A, b; c!") == 1.0
    assert jaccard("a b", "c d") == 0.0
    assert jaccard("", "a") == 0.0
    assert jaccard("a b c", "a b d") == 0.5
