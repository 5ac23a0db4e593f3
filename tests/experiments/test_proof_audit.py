"""What the proof counts as "the gate rejected a harmful edit on its own evidence".

The README and ``--assert-improves`` promise a harmful edit "the gate rejected on its own
(negative) delta". The engine marks that in its night report (``EditView.harmful``: the edit was
alone in the candidate the gate weighed, and the delta is negative). The experiment ignored the
mark and took any negative delta, so a harmful edit rejected only because its *bundle* scored
lower (an edit beside it did the harm, or ``--ablate credit`` shared the bundle's delta) counted
as the proof.
"""

from __future__ import annotations

from types import SimpleNamespace

from experiments.personas import PERSONAS
from experiments.proof import EditRecord, ExperimentResult, ExperimentSpec, _edits
from skillopt_sleep.engine.records import EditView

BROAD = "- In every answer, whatever the request: Never write 'misc entries'."


def _view(*, own: bool, delta: float) -> EditView:
    return EditView(
        skill="/p/SKILL.md",
        op="add",
        anchor="",
        content=BROAD,
        rationale="",
        step=1,
        accepted=False,
        delta=delta,
        harmful=own,
    )


def _result(*edits: EditRecord) -> ExperimentResult:
    spec = ExperimentSpec(persona="researcher")
    return ExperimentResult(spec, 0.0, (), 1.0, 1.0, 0.9, 1.0, "better", 24, edits, {}, 0)


def test_a_harmful_edit_rejected_with_its_bundles_delta_is_not_the_proof() -> None:
    report = SimpleNamespace(edits=[_view(own=False, delta=-0.3)])
    (record,) = _edits(1, "thesis", report, PERSONAS["researcher"])  # type: ignore[arg-type]
    assert record.harm == "too broad" and record.delta < 0
    result = _result(record)
    assert result.harmful_rejected == ()
    assert not result.proof_holds


def test_a_harmful_edit_rejected_on_its_own_delta_is_the_proof() -> None:
    report = SimpleNamespace(edits=[_view(own=True, delta=-0.3)])
    (record,) = _edits(1, "thesis", report, PERSONAS["researcher"])  # type: ignore[arg-type]
    result = _result(record)
    assert result.harmful_rejected == (record,)
    assert result.proof_holds


def _unstyled(text: str) -> str:
    """A request without the simulator's opener, closer and case: the wording it was made from."""
    from experiments.personas.simulate import _CLOSERS, _OPENERS

    text = " ".join(text.lower().split())
    for opener in sorted({o.strip() for o in _OPENERS if o.strip()}, key=len, reverse=True):
        if text.startswith(opener):
            text = text[len(opener) :].strip()
            break
    for closer in sorted({c.strip() for c in _CLOSERS if c.strip()}, key=len, reverse=True):
        if text.endswith(closer):
            text = text[: -len(closer)].strip()
            break
    return text


def test_no_held_out_request_is_a_restyled_training_request() -> None:
    """Held-out requests were new only as exact strings: "pls summarise arXiv 2401.12345 for me"
    was held out after "summarise arXiv 2401.12345 for me thanks" was trained on (6 to 15 of the
    24 per run). Only a family whose every wording was trained on may repeat one."""
    from experiments.personas import held_out, simulate
    from experiments.personas.simulate import seen_wordings, wordings

    for persona in PERSONAS.values():
        for seed in (0, 1):
            sessions = simulate(persona, 12, seed)
            trained = {_unstyled(t.text) for s in sessions for t in s.turns if t.role == "user"}
            exhausted = {
                f.id
                for f in persona.families
                if seen_wordings(f, persona, sessions) == set(wordings(f, persona))
            }
            for request in held_out(persona, 12, 4, seed, sessions):
                if request.family not in exhausted:
                    assert _unstyled(request.text) not in trained, (persona.name, seed, request)


def test_a_replace_that_drops_a_learned_requirement_is_harmful() -> None:
    """``harm_kind`` read only a replace's new text, so replacing the line that taught a
    requirement with an irrelevant one counted as harmless (the simulated optimizer never
    replaces today; a real optimizer does)."""
    from experiments.harm import harm_kind

    persona = PERSONAS["researcher"]
    learned = "- Always include the publication year of each paper."
    assert harm_kind("delete", learned, "", persona) == "deletes a learned requirement"
    assert harm_kind("replace", learned, "- Prefer British spelling in prose.", persona) != ""
    reworded = "- Give every paper's publication year."
    assert harm_kind("replace", learned, reworded, persona) == ""


def _row(ablation: str, seed: int, final: float, ci_low: float, holds: bool) -> dict[str, object]:
    return {
        "key": f"writer|{ablation}|{seed}|4",
        "persona": "writer",
        "ablation": ablation,
        "seed": seed,
        "nights": 4,
        "baseline": 0.0,
        "per_night": [final],
        "final": final,
        "delta": final,
        "ci_low": ci_low,
        "ci_high": final,
        "accepted": 3,
        "rejected": 0 if ablation == "gate" else 2,
        "harmful_proposed": 1,
        "harmful_rejected": 0 if ablation == "gate" else 1,
        "harmful_landed": 1 if ablation == "gate" else 0,
        "proof_holds": holds,
        "calls": 100,
        "tokens": 1000,
    }


def test_the_ablation_table_says_whether_held_out_improved_apart_from_the_proof() -> None:
    """Without the gate nothing is rejected, so 'proof holds' is 0/N by construction; the table
    said only that, which reads as "no gain without the gate" while held-out improved (interval
    above zero) in every shipped no-gate run. The improvement is its own column."""
    from experiments.report import ablation_table

    rows = [
        _row("none", 0, 0.9, 0.8, True),
        _row("none", 1, 0.8, 0.7, True),
        _row("gate", 0, 0.5, 0.3, False),
        _row("gate", 1, 0.4, 0.2, False),
    ]
    header, _, _full, no_gate = ablation_table(rows)  # type: ignore[arg-type]
    assert "held-out improved" in header
    cells = [c.strip() for c in no_gate.split("|")]
    columns = [c.strip() for c in header.split("|")]
    assert cells[columns.index("held-out improved (CI > 0)")] == "2/2"
    assert cells[columns.index("proof holds")] == "0/2"
