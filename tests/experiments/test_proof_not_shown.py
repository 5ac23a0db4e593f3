"""A demo whose simulated optimizer proposed nothing harmful says the gate was not put to the test
and what to try. Before, it printed "ASSERTION FAILED: no harmful edit was proposed and rejected
by the gate", as if the gate had failed (seen with `skillopt-sleep demo --persona programmer
--nights 1`)."""

from __future__ import annotations

from experiments.proof import EditRecord, ExperimentResult, ExperimentSpec
from experiments.run_experiment import _proof_problems


def _result(*edits: EditRecord) -> ExperimentResult:
    spec = ExperimentSpec(persona="programmer")
    return ExperimentResult(spec, 0.0, (), 1.0, 1.0, 0.9, 1.0, "better", 24, edits, {}, 0)


def _edit(*, harm: str, accepted: bool, delta: float, own: bool = False) -> EditRecord:
    return EditRecord(1, "cli", "add", "- a line", "", accepted, delta, harm, own)


def test_a_run_that_never_tested_the_gate_says_so_and_what_to_try() -> None:
    (problem,) = _proof_problems(_result(_edit(harm="", accepted=True, delta=0.5)))
    assert problem.startswith("the gate was not put to the test") and "--seed" in problem


def test_a_harmful_edit_that_got_through_is_not_called_untested() -> None:
    (problem,) = _proof_problems(_result(_edit(harm="too broad", accepted=True, delta=0.1)))
    assert "turned down on its own evidence" in problem


def test_a_rejected_harmful_edit_is_the_proof() -> None:
    rejected = _edit(harm="too broad", accepted=False, delta=-0.3, own=True)
    assert _proof_problems(_result(rejected)) == []
