from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from skillopt_core.cli import app

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"
runner = CliRunner()


def test_help_teaches_the_options() -> None:
    for args, expected in (
        (["--help"], "Exit codes"),
        (["train", "--help"], "--out-root"),
        (["eval", "--help"], "valid_unseen"),
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0
        assert expected in result.output


def test_train_json_summary_shows_improvement_and_edits(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [
        "train",
        "--split-dir",
        str(TOY),
        "--out-root",
        str(out),
        "--epochs",
        "2",
        "--batch-size",
        "32",
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["final"]["test"]["hard"] > summary["baseline"]["test"]["hard"]
    assert summary["accepted_edits"]
    assert (out / "best_skill.md").read_text() != (TOY / "seed_skill.md").read_text()
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert json.loads(again.stdout)["final"] == summary["final"], (
        "re-running resumes a finished run"
    )


def test_eval_scores_a_skill_on_every_split(tmp_path: Path) -> None:
    skill = tmp_path / "skill.md"
    skill.write_text("- Write numbers as digits (12, not twelve).\n")
    result = runner.invoke(app, ["eval", "--skill", str(skill), "--split-dir", str(TOY), "--json"])
    assert result.exit_code == 0, result.output
    splits = json.loads(result.stdout)["splits"]
    assert set(splits) == {"train", "val", "test"}
    assert 0 < splits["test"]["hard"] < 1


def test_usage_errors_have_exit_code_2(tmp_path: Path) -> None:
    skill = tmp_path / "skill.md"
    skill.write_text("x")
    bad_split = runner.invoke(
        app, ["eval", "--skill", str(skill), "--split-dir", str(TOY), "--split", "dev"]
    )
    assert bad_split.exit_code == 2
    assert "unknown split" in bad_split.output
    bad_backend = runner.invoke(
        app, ["eval", "--skill", str(skill), "--split-dir", str(TOY), "--backend", "nope"]
    )
    assert bad_backend.exit_code == 2
    assert "unknown backend 'nope'" in bad_backend.output
    config = tmp_path / "c.toml"
    config.write_text("[train]\nepochz = 3\n")
    bad_config = runner.invoke(
        app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "r"),
            "--config",
            str(config),
        ],
    )
    assert bad_config.exit_code == 2
    assert "unknown key 'epochz' in [train] (did you mean 'epochs'?)" in bad_config.output


def test_toml_config_is_honoured(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        '[train]\nepochs = 1\nbatch_size = 63\n[lr]\nschedule = "constant"\nmax = 2\nmin = 2\n[gate]\nmetric = "mixed"\n'
    )
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(out),
            "--config",
            str(config),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "config.json").read_text())
    assert (
        saved["epochs"] == 1
        and saved["lr"]["kind"] == "constant"
        and saved["gate"]["metric"] == "mixed"
    )
    history = json.loads((out / "history.json").read_text())
    assert len(history) == 1 and history[0]["lr_budget"] == 2


def test_console_script_runs_as_a_process(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from skillopt_core.cli import main; main()",
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "r"),
            "--epochs",
            "1",
            "--batch-size",
            "63",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "baseline hard" in result.stdout and "accepted edits" in result.stdout


def test_dry_run_prints_the_preflight_without_calling_a_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(out),
            "--dry-run",
            "--max-calls",
            "100",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    estimate = json.loads(result.stdout)
    assert estimate["calls"] > 100
    assert {g["purpose"] for g in estimate["groups"]} >= {"rollout", "reflect", "gate"}
    assert estimate["budget_problems"] and "--max-calls is 100" in estimate["budget_problems"][0]
    assert not out.exists(), "a dry run writes nothing"


def test_budget_limit_stops_cleanly_with_exit_code_4(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        ["train", "--split-dir", str(TOY), "--out-root", str(out), "--max-calls", "150", "--json"],
    )
    assert result.exit_code == 4, result.output
    ledger = json.loads((out / "ledger.json").read_text())
    assert ledger["totals"]["calls"] <= 150
    assert (out / "best_skill.md").is_file()


def test_handoff_pending_exits_3_and_resumes_when_answered(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from skillopt_core.backends.handoff import read_pending

    handoff = tmp_path / "handoff"
    monkeypatch.setenv("SKILLOPT_HANDOFF_DIR", str(handoff))
    skill = tmp_path / "skill.md"
    skill.write_text("- Write numbers as digits (12, not twelve).\n")
    args = [
        "eval",
        "--skill",
        str(skill),
        "--split-dir",
        str(TOY),
        "--split",
        "valid_seen",
        "--backend",
        "handoff",
        "--json",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 3, first.output
    pending = read_pending(handoff)
    assert len(pending) == 35, "every prompt of the evaluation is handed off at once"
    for entry in pending:
        answer = Path(entry.answer_file)
        answer = answer if answer.is_absolute() else handoff / answer
        answer.parent.mkdir(parents=True, exist_ok=True)
        answer.write_text("12")
    second = runner.invoke(app, args)
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout)["splits"]["valid_seen"]["n"] == 35


def test_backends_can_be_named_in_the_config(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        '[train]\nepochs = 1\nbatch_size = 63\n[backends]\noptimizer = "mock:opt-model"\ntarget = "mock:tgt-model"\n[backends.options]\nwrong_rate = 0.0\n'
    )
    result = runner.invoke(
        app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "r"),
            "--config",
            str(config),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["optimizer"], summary["target"]) == ("mock:opt-model", "mock:tgt-model")
    assert summary["rejected_edits"] == [], (
        "wrong_rate=0 reached the mock through [backends.options]"
    )
    flagged = runner.invoke(
        app,
        [
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "r2"),
            "--config",
            str(config),
            "--backend",
            "mock",
            "--json",
        ],
    )
    assert json.loads(flagged.stdout)["target"] == "mock:mock-1", "a flag wins over the config"
