"""Credit inside a rejected bundle: each edit is judged on its own evidence."""

from __future__ import annotations

from skillopt_core.backends._protocol import BudgetExceeded
from skillopt_core.optim.credit import assign_credit, prune_bundle
from skillopt_core.records import Decision, Edit, EditOp

SKILL = "# Skill\n\n- keep\n"
GOOD = Edit(EditOp.ADD, "", "- good rule")
ALSO = Edit(EditOp.ADD, "", "- also good")
BAD = Edit(EditOp.ADD, "", "- harmful rule")
WORTH = {"good rule": 0.3, "also good": 0.2, "harmful rule": -0.5}


def score(text: str) -> float:
    return sum(v for k, v in WORTH.items() if k in text)


def gate(candidate: str) -> tuple[Decision, float]:
    delta = score(candidate) - score(SKILL)
    return Decision(delta > 0, "hard", 0.0, delta, "test"), delta


def test_good_edits_of_a_rejected_bundle_are_taken_and_the_harmful_one_blamed() -> None:
    outcome = assign_credit(SKILL, [GOOD, BAD, ALSO], gate, limit=4)
    assert [c.edit for c in outcome.accepted] == [GOOD, ALSO]
    assert (
        outcome.skill is not None
        and "good rule" in outcome.skill
        and "harmful" not in outcome.skill
    )
    (blamed,) = outcome.blamed
    assert blamed.edit == BAD and blamed.delta == -0.5


def test_when_the_good_edits_clash_the_best_single_is_taken() -> None:
    def clashing(candidate: str) -> tuple[Decision, float]:
        delta = score(candidate) - score(SKILL)
        if "good rule" in candidate and "also good" in candidate:
            delta = -0.1
        return Decision(delta > 0, "hard", 0.0, delta, "test"), delta

    outcome = assign_credit(SKILL, [ALSO, GOOD], clashing, limit=4)
    assert [c.edit for c in outcome.accepted] == [GOOD]
    assert not outcome.blamed  # ALSO improved alone: neither blamed nor kept


def test_the_limit_leaves_the_rest_unchecked() -> None:
    outcome = assign_credit(SKILL, [BAD, GOOD, ALSO], gate, limit=1)
    assert [c.edit for c in outcome.singles] == [BAD]
    assert outcome.unchecked == (GOOD, ALSO) and outcome.skill is None


def test_a_spent_call_budget_stops_re_gating() -> None:
    calls = []

    def spent(candidate: str) -> tuple[Decision, float]:
        if calls:
            raise BudgetExceeded("max_calls")
        calls.append(candidate)
        return gate(candidate)

    outcome = assign_credit(SKILL, [GOOD, BAD], spent, limit=4)
    assert outcome.stopped and outcome.unchecked == (BAD,)
    assert [c.edit for c in outcome.accepted] == [GOOD]


def test_a_harmful_edit_cannot_ride_along_in_an_accepted_bundle() -> None:
    candidate = SKILL + "- good rule\n- harmful rule\n- also good\n"
    pruned = prune_bundle(SKILL, [GOOD, BAD, ALSO], candidate, score(candidate), gate, limit=4)
    assert pruned.kept == (GOOD, ALSO)
    (dropped,) = pruned.dropped
    assert dropped.edit == BAD and dropped.delta == -0.5
    assert "harmful" not in pruned.skill and "also good" in pruned.skill


def test_a_bundle_of_good_edits_is_kept_whole() -> None:
    candidate = SKILL + "- good rule\n- also good\n"
    pruned = prune_bundle(SKILL, [GOOD, ALSO], candidate, score(candidate), gate, limit=4)
    assert pruned.kept == (GOOD, ALSO) and not pruned.dropped and pruned.skill == candidate


def test_an_edit_that_changes_nothing_alone_is_not_blamed() -> None:
    """An edit anchored on text another edit of the bundle adds is a no-op alone: it was blamed
    with delta 0 and entered the rejected buffer, blocked for good on no evidence at all."""
    adds_anchor = Edit(EditOp.ADD, "", "- harmful rule")
    leans_on_it = Edit(EditOp.REPLACE, "- harmful rule", "- good rule")
    outcome = assign_credit(SKILL, [adds_anchor, leans_on_it], gate, limit=4)
    (blamed,) = outcome.blamed
    assert blamed.edit == adds_anchor
    (no_op,) = [c for c in outcome.singles if c.edit == leans_on_it]
    assert no_op.refused == "it changes nothing alone" and not no_op.improves
