"""The proof through the whole pipeline on one persona (one seed; the full sweep is a script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.proof import ExperimentSpec, run
from experiments.run_experiment import main


def test_assert_improves_passes_on_the_researcher(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "result.json"
    assert main(["--persona", "researcher", "--assert-improves", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PROOF HOLDS" in printed
    (result,) = json.loads(out.read_text())
    assert result["final"] > result["baseline"] and result["ci_low"] > 0
    harmful = [e for e in result["edits"] if e["harm"] and not e["accepted"]]
    assert harmful and all(e["delta"] < 0 for e in harmful)
    landed = [e for e in result["edits"] if e["harm"] and e["accepted"]]
    final = "\n".join(result["skills"].values())
    assert all(e["content"].strip() not in final for e in landed)  # a later night deleted it
    totals = result["totals"]  # the file says what the terminal said
    assert totals["proof_holds"] and totals["improves"]
    assert (
        f"edits: {totals['accepted']} accepted, {totals['rejected']} rejected; harmful proposed "
        f"{totals['harmful_proposed']}, rejected by the gate {totals['harmful_rejected']}, "
        f"landed {totals['harmful_landed']}"
    ) in printed
    assert (
        f"calls: {totals['calls']} in the nights ({totals['tokens']} tokens), "
        f"{totals['held_out_calls']} for held-out scoring"
    ) in printed


def test_a_run_is_deterministic_for_a_seed() -> None:
    spec = ExperimentSpec(persona="researcher", seed=3, nights=1)
    first, second = run(spec), run(spec)
    assert first.calls > 0 and first.tokens > 0
    assert (first.final, first.edits, first.skills) == (second.final, second.edits, second.skills)


def test_skillopt_sleep_demo_runs_the_proof() -> None:
    from typer.testing import CliRunner

    from skillopt_sleep.cli import app

    result = CliRunner().invoke(app, ["demo", "--nights", "1", "--seed", "3"])
    assert "baseline (before night 1)" in result.output
    assert result.exit_code in (0, 1)  # one night may not see a harmful edit rejected


def test_the_proof_runs_through_the_openai_sdk_against_a_loopback_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user's proxy settings do not carry the loopback requests away (they failed the health
    check), and the result does not record the server's random port (its JSON differed run to
    run)."""
    from experiments.loopback import run_loopback

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    result = run_loopback(ExperimentSpec(persona="researcher", seed=0, nights=2))
    assert result.final > result.baseline and result.ci_low > 0
    assert result.calls > 0
    assert dict(result.spec.extra) == {"backends.target": "openai:fake-model"}


def test_transfer_a_skill_trained_on_one_target_is_measured_on_the_other() -> None:
    from experiments.transfer import run_transfer

    cross, direct = run_transfer(ExperimentSpec(persona="researcher", seed=0, nights=2))
    assert cross.spec.profile == "a" and cross.spec.eval_profile == "b"
    assert direct.final > cross.final  # target b's own weaknesses are not what a's skill learned
    from experiments.render import transfer_lines

    (line,) = transfer_lines(cross, direct)
    assert line == (
        f"transfer: held-out on target b: {direct.baseline:.1%} untrained, "
        f"{cross.final:.1%} trained on a, {direct.final:.1%} trained on b"
    )


def test_without_the_gate_harmful_edits_land_and_the_proof_fails(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["--persona", "writer", "--ablate", "gate", "--assert-improves"]) == 1
    out = capsys.readouterr().out
    assert "LANDED harmful edit" in out


def test_demo_names_its_personas_in_its_own_words() -> None:
    """An unknown persona printed `python -m experiments.run_experiment`'s usage, with flags
    `demo` does not have; its help did not list the personas."""
    from typer.testing import CliRunner

    from experiments.personas import PERSONAS
    from skillopt_sleep.cli import app

    wrong = CliRunner().invoke(app, ["demo", "--persona", "nobody"])
    assert wrong.exit_code == 2
    assert "run_experiment" not in wrong.output and "skillopt-sleep demo" in wrong.output
    shown = " ".join(CliRunner().invoke(app, ["demo", "--help"]).output.split())
    assert all(name in shown for name in PERSONAS)


def test_demo_refuses_a_negative_seed_in_its_own_words() -> None:
    """``demo --seed -1`` was refused by ``run_experiment``'s parser, whose message names flags
    ``demo`` does not have."""
    from typer.testing import CliRunner

    from skillopt_sleep.cli import app

    wrong = CliRunner().invoke(app, ["demo", "--seed", "-1"])
    assert wrong.exit_code == 2
    assert "'--seed'" in wrong.output and "skillopt-sleep demo" in wrong.output


def test_held_out_scoring_is_not_held_to_a_nights_call_budget() -> None:
    """Scoring after every night once spent the night budget's 400 calls, so ``--nights 8`` or
    more stopped with 'call budget of 400 reached'. Nine replays a request reach it in one night."""
    result = run(ExperimentSpec(persona="researcher", seed=0, nights=1, train_days=1, samples=9))
    assert result.held_out_calls == 24 * 9 * 2
