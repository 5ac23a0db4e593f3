"""Fault injection for `skillopt train`: a useless optimizer, spent budgets, resumed runs, bad
configs and items, damaged run files, unwritable places, markup in model text, an ASCII locale.

Every failure must end with ``error: <message>`` (+ ``fix:``) and its exit code, never a traceback
and never a silent exit 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skillopt_core.backends import BACKENDS, BackendSpec, Completion, CompletionRequest
from skillopt_core.backends.mock import MockBackend
from skillopt_core.cli import app
from skillopt_core.errors import EXIT_BUDGET, EXIT_NO_EVIDENCE, EXIT_USAGE

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"
runner = CliRunner()


class _Reflects:
    """The mock world, except that every reflection is answered with ``reply``."""

    def __init__(self, reply: str) -> None:
        self.inner = MockBackend()
        self.name, self.model, self.reply = "reflects", "test-1", reply

    def health_check(self) -> None:
        return None

    def complete(self, request: CompletionRequest) -> Completion:
        if request.purpose == "reflect":
            return Completion(text=self.reply, model=self.model)
        return self.inner.complete(request)


MARKUP_EDIT = "- Never print [/INST] or [bold]tags[/b] (see [backends])."


def _backend(spec: BackendSpec, options: Mapping[str, Any]) -> _Reflects:
    if spec.model == "chatty":
        return _Reflects("Happy to help! Here are my thoughts on the skill...")
    if spec.model == "content":
        return _Reflects(json.dumps({"edits": []}))
    edit = {"op": "add", "content": MARKUP_EDIT, "rationale": "[red]why[/red]"}
    return _Reflects(json.dumps({"edits": [edit]}))


if "reflects" not in BACKENDS:
    BACKENDS.add("reflects", _backend)


def train(out: Path, *extra: str, split_dir: Path = TOY) -> Any:
    return runner.invoke(
        app, ["train", "--split-dir", str(split_dir), "--out-root", str(out), *extra]
    )


def write_split(root: Path, splits: Mapping[str, Any]) -> Path:
    for split in ("train", "val", "test"):
        items = splits.get(split, json.loads((TOY / split / "items.json").read_text()))
        (root / split).mkdir(parents=True, exist_ok=True)
        (root / split / "items.json").write_text(json.dumps(items))
    return root


# -- no silent zero -------------------------------------------------------------------------------


def test_an_optimizer_that_never_returns_usable_edits_stops_with_exit_7(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = train(out, "--optimizer", "reflects:chatty", "--target", "mock", "--epochs", "2")
    assert result.exit_code == EXIT_NO_EVIDENCE, result.output
    assert "error: no usable edits" in result.output and "fix:" in result.output
    assert "stopped early: no usable edits" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_reason"].startswith("no usable edits")
    assert "not valid JSON" in summary["stopped_reason"]
    assert summary["exit_code"] == EXIT_NO_EVIDENCE
    history = json.loads((out / "history.json").read_text())
    assert len(history) == 1, "the run stops after the first step that brought nothing usable"


def test_an_optimizer_that_asks_for_no_change_is_a_warning_not_a_silent_zero(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    result = train(out, "--optimizer", "reflects:content", "--target", "mock", "--epochs", "1")
    assert result.exit_code == 0, result.output  # valid replies: an answer, not a failure
    assert "the optimizer proposed no edit in any of" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert any("proposed no edit" in w for w in summary["warnings"])


def test_a_budget_spent_in_the_final_evaluation_is_reported_as_stopped(tmp_path: Path) -> None:
    args = ("--epochs", "1", "--batch-size", "63", "--json")
    full = train(tmp_path / "full", *args)
    assert full.exit_code == 0, full.output
    calls = json.loads(full.stdout)["usage"]["calls"]
    short = train(tmp_path / "short", *args, "--max-calls", str(calls - 5))
    assert short.exit_code == EXIT_BUDGET, short.output
    summary = json.loads((tmp_path / "short" / "summary.json").read_text())
    assert summary["final"]["test"] is None
    assert summary["stopped_reason"].startswith("budget:")
    assert "final evaluation" in summary["stopped_reason"]
    assert "error: " in short.output and "call budget" in short.output


# -- budgets belong to the run --------------------------------------------------------------------


def test_resumed_runs_continue_the_runs_spend(tmp_path: Path) -> None:
    out = tmp_path / "run"
    for _ in range(3):
        result = train(out, "--max-calls", "150", "--json")
        assert result.exit_code == EXIT_BUDGET, result.output
    ledger = json.loads((out / "ledger.json").read_text())
    assert ledger["totals"]["calls"] <= 150, "three invocations share the run's budget of 150"
    journal = [json.loads(line) for line in (out / "ledger.jsonl").read_text().splitlines()]
    settled = [line for line in journal if "begun" not in line]
    assert len(settled) == ledger["totals"]["calls"]  # each call journaled as it settled
    assert {line["begun"] for line in journal if "begun" in line} == {
        line["call"] for line in settled
    }  # and as it began, none left in flight
    raised = train(out, "--max-calls", "100000", "--json")
    assert raised.exit_code == 0, "a raised limit lets the run finish"
    assert json.loads(raised.stdout)["usage"]["calls"] > 150


def test_a_truncated_call_journal_does_not_grant_the_budget_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = train(out, "--max-calls", "150", "--json")
    assert first.exit_code == EXIT_BUDGET, first.output
    assert json.loads((out / "runtime_state.json").read_text())["next_step"] > 0
    (out / "ledger.jsonl").write_bytes(b"")  # a crash or a careless editor emptied it
    resumed = train(out, "--max-calls", "150", "--json")
    assert resumed.exit_code == 1, resumed.output
    assert "ledger.jsonl is empty" in resumed.output and "fix:" in resumed.output
    assert (out / "ledger.jsonl").read_bytes() == b"", "no call was made"


# -- configuration --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[trian]\nepochs = 1\n", "unknown section [trian] (did you mean [train]?)"),
        ("[gate]\nmetrc = 'soft'\n", "unknown key 'metrc' in [gate] (did you mean 'metric'?)"),
        ("[slow_update]\nenabeld = false\n", "(did you mean 'enabled'?)"),
        ("[backends]\noptimiser = 'mock'\n", "(did you mean 'optimizer'?)"),
        (
            "[backends.options.optimzer]\ntimeout = 5\n",
            "unknown role table [backends.options.optimzer] "
            "(did you mean [backends.options.optimizer]?)",
        ),
        ('[gate]\nno_regression = "false"\n', "[gate] no_regression must be a boolean"),
        ("[train]\nepochs = 2.5\n", "[train] epochs must be an integer, got 2.5"),
        ("[train]\nepochs = true\n", "[train] epochs must be an integer, got true"),
        ("[lr]\nschedule = 'cosin'\n", "(did you mean 'cosine'?)"),
        ("[gate]\nmin_delta = nan\n", "[gate] min_delta must be a finite number, got NaN"),
        ("[gate]\nmin_delta = inf\n", "[gate] min_delta must be a finite number, got Infinity"),
        ("[gate]\nmixed_weight = -inf\n", "[gate] mixed_weight must be a finite number"),
        ("[gate]\nmin_delta = -1.0\n", "gate min_delta must be a finite number >= 0, got -1.0"),
        ('seed_skill = "s.md"\n', "'seed_skill' is a key of [train]: write it under [train]"),
        ('[train]\nenv = "nope"\n', "unknown environment 'nope'"),
        ('[train]\nseed_skill = "missing.md"\n', "seed_skill 'missing.md' does not exist"),
    ],
)
def test_config_mistakes_are_usage_errors(tmp_path: Path, toml: str, message: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml)
    result = train(tmp_path / "run", "--config", str(config))
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.output.startswith("error: ") and message in result.output
    assert not (tmp_path / "run").exists(), "nothing is written for a bad config"


def test_a_misspelt_option_for_a_real_backend_is_a_usage_error(tmp_path: Path) -> None:
    options = ("--option", "api_key=k", "--option", "timeot=5")
    result = train(tmp_path / "run", "--backend", "openai:m", *options, "--dry-run")
    assert result.exit_code == EXIT_USAGE, result.output
    assert "unknown option 'timeot' for openai (did you mean 'timeout'?)" in result.output


def test_a_seed_skill_next_to_the_config_is_found(tmp_path: Path) -> None:
    (tmp_path / "seed.md").write_text("- Answer with the span only.\n")
    config = tmp_path / "c.toml"
    config.write_text('[train]\nseed_skill = "seed.md"\nepochs = 1\nbatch_size = 63\n')
    result = train(tmp_path / "run", "--config", str(config), "--max-calls", "0")
    assert result.exit_code == EXIT_BUDGET, result.output
    first = (tmp_path / "run" / "skills" / "skill_v0000.md").read_text()
    assert first == "- Answer with the span only.\n", "not silently replaced by the split's seed"


# -- items ----------------------------------------------------------------------------------------


def _item(answers: Any, item_id: str = "x-1") -> dict[str, Any]:
    return {"id": item_id, "question": "How long is it?", "answers": answers}


@pytest.mark.parametrize(
    ("splits", "message"),
    [
        ({"train": [_item(None)]}, "'answers' must be a non-empty list"),
        ({"train": [_item(7)]}, "'answers' must be a non-empty list"),
        ({"train": [_item({})]}, "'answers' must be a non-empty list"),
        ({"train": [_item([])]}, "'answers' must be a non-empty list"),
        ({"train": [_item(["   "])]}, "'answers' must be a non-empty list of non-blank"),
        ({"val": [_item(["1 m", ""])]}, "'answers' must be a non-empty list of non-blank"),
        ({"test": [_item(" \t")]}, "'answers' must be a non-empty list of non-blank"),
        ({"val": [{"id": "v", "question": "q"}]}, "needs 'answers'"),
        ({"train": []}, "the train split of"),
        ({"val": []}, "the val split of"),
        ({"train": [_item(["1 m"]), _item(["2 m"])]}, "share the id 'x-1'"),
    ],
)
def test_bad_items_are_usage_errors(tmp_path: Path, splits: Any, message: str) -> None:
    split_dir = write_split(tmp_path / "split", splits)
    result = train(tmp_path / "run", "--epochs", "1", split_dir=split_dir)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.output.startswith("error: ") and message in result.output


def test_resume_refuses_a_different_split_dir(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert train(out, "--epochs", "1", "--batch-size", "63").exit_code == 0
    other = json.loads((TOY / "val" / "items.json").read_text())[:-1]
    changed = write_split(tmp_path / "split", {"val": other})
    result = train(out, "--epochs", "1", "--batch-size", "63", split_dir=changed)
    assert result.exit_code == EXIT_USAGE, result.output
    assert "trained on different items" in result.output and "fix:" in result.output


# -- storage --------------------------------------------------------------------------------------


def test_an_unusable_out_root_is_a_message_with_a_way_out(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = train(blocker / "run", "--epochs", "1")
    assert result.exit_code == 1, result.output
    assert "error: cannot use" in result.output and "fix: choose a directory" in result.output


@pytest.mark.parametrize("content", ['{"truncated": ', "[1, 2]", "\udcff"])
@pytest.mark.parametrize("name", ["runtime_state.json", "eval_cache.json", "history.json"])
def test_damaged_run_files_are_a_message_with_a_way_out(
    tmp_path: Path, name: str, content: str
) -> None:
    out = tmp_path / "run"
    args = ("--epochs", "2", "--batch-size", "32", "--max-calls", "120")
    assert train(out, *args).exit_code == EXIT_BUDGET
    (out / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    result = train(out, *args)
    assert result.exit_code == 1, result.output
    assert f"{name} is damaged" in result.output and "fix:" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("next_stepp", 3),
        ("current_skill", None),
        ("best_skill", 5),
        ("next_step", "1"),
        ("next_step", -1),
        ("epochs_closed", True),
        ("accepted", {}),
        ("rejected", [7]),
        ("rejected", [{"edit": "x"}]),
    ],
)
def test_a_resume_state_of_the_wrong_shape_is_damaged(
    tmp_path: Path, field: str, value: Any
) -> None:
    out = tmp_path / "run"
    args = ("--epochs", "1", "--batch-size", "63", "--max-calls", "60")
    assert train(out, *args).exit_code == EXIT_BUDGET
    state = json.loads((out / "runtime_state.json").read_text())
    (out / "runtime_state.json").write_text(json.dumps({**state, field: value}))
    result = train(out, *args)
    assert result.exit_code == 1, result.output
    assert "runtime_state.json is damaged" in result.output and "fix:" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


# -- the terminal ---------------------------------------------------------------------------------


def test_model_written_markup_prints_as_written(tmp_path: Path) -> None:
    result = train(
        tmp_path / "run",
        "--optimizer",
        "reflects:markup",
        "--target",
        "mock",
        "--epochs",
        "1",
        "--batch-size",
        "63",
    )
    assert result.exit_code == 0, result.output
    assert MARKUP_EDIT[:60] in " ".join(result.output.split())


def test_errors_with_brackets_print_as_written(tmp_path: Path) -> None:
    result = train(tmp_path / "run", "--backend", "nope[/b]")
    assert result.exit_code == EXIT_USAGE
    assert "unknown backend 'nope[/b]'" in result.output


def test_help_keeps_brackets_and_lists_exit_codes() -> None:
    result = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    assert "the config's [backends] table" in result.output
    assert "7 nothing usable" in " ".join(result.output.split())


_UNICODE_OPTIMIZER = r"""
import json, sys
from skillopt_core.backends import BACKENDS, Completion
from skillopt_core.backends.mock import MockBackend
from skillopt_core.cli import main

class Accented(MockBackend):
    def complete(self, request):
        if request.purpose != "reflect":
            return super().complete(request)
        edit = {"op": "add", "content": "- R\u00e9ponds avec l'extrait exact \u2014 rien d'autre \u2713"}
        return Completion(text=json.dumps({"edits": [edit]}))

BACKENDS.add("accented", lambda spec, options: Accented())
sys.argv[0] = "skillopt"
main()
"""


def test_train_survives_an_ascii_locale(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "LC_ALL": "C"}
    env.pop("PYTHONIOENCODING", None)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _UNICODE_OPTIMIZER,
            "train",
            "--split-dir",
            str(TOY),
            "--out-root",
            str(tmp_path / "run"),
            "--optimizer",
            "accented",
            "--target",
            "mock",
            "--epochs",
            "1",
            "--batch-size",
            "63",
        ],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode("ascii", "replace")
    assert b"UnicodeEncodeError" not in result.stderr
    assert b"R\\xe9ponds" in result.stdout, "the model's accented edit prints as escapes"


def test_eval_of_a_binary_skill_is_a_usage_error(tmp_path: Path) -> None:
    skill = tmp_path / "skill.md"
    skill.write_bytes(b"\xff\xfe\x00binary")
    result = runner.invoke(app, ["eval", "--skill", str(skill), "--split-dir", str(TOY)])
    assert result.exit_code == EXIT_USAGE and "is not UTF-8 text" in result.output
