from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from skillopt_core.backends import (
    BackendUnavailable,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    create_backend,
)
from skillopt_core.backends.runtime import Roles
from skillopt_core.config import ConfigError, TrainConfig
from skillopt_core.envs.base import items_digest
from skillopt_core.envs.qa import QAEnvironment
from skillopt_core.errors import NoEvidenceError
from skillopt_core.optim.trainer import Trainer
from skillopt_core.rundir import RunDir

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"
SEED_SKILL = (TOY / "seed_skill.md").read_text()
FAST = TrainConfig(epochs=2, batch_size=32, workers=4)


def mock_roles() -> Roles:
    return Roles(optimizer=create_backend("mock"), target=create_backend("mock"))


def train(out: Path, config: TrainConfig = FAST, roles: Roles | None = None) -> Trainer:
    trainer = Trainer(config, QAEnvironment(TOY), roles or mock_roles(), RunDir(out), SEED_SKILL)
    trainer.fit()
    return trainer


def test_training_improves_held_out_accuracy_and_writes_the_run_layout(tmp_path: Path) -> None:
    trainer = train(tmp_path)
    best = (tmp_path / "best_skill.md").read_text()
    evaluator = trainer.evaluator
    assert evaluator.evaluate(best, "test").hard > evaluator.evaluate(SEED_SKILL, "test").hard + 0.3
    for name in (
        "config.json",
        "history.json",
        "runtime_state.json",
        "best_skill.md",
        "eval_cache.json",
    ):
        assert (tmp_path / name).is_file(), name
    assert (tmp_path / "skills" / "skill_v0000.md").read_text() == SEED_SKILL
    step_dirs = sorted((tmp_path / "steps").iterdir())
    assert len(step_dirs) == trainer.total_steps == 4
    assert (step_dirs[0] / "rollouts.json").is_file() and (step_dirs[0] / "patches.json").is_file()
    assert (tmp_path / "slow_update" / "epoch_00" / "slow_update.json").is_file()
    assert (tmp_path / "meta" / "epoch_01" / "meta_skill.md").is_file()
    history = json.loads((tmp_path / "history.json").read_text())
    assert [h["step"] for h in history] == [0, 1, 2, 3]
    assert any(h["accepted"] for h in history)


def test_gate_rejects_a_harmful_edit_that_was_proposed(tmp_path: Path) -> None:
    """From the trace: a harmful edit was proposed, reached the gate, and was rejected."""
    config = replace(FAST, epochs=4)
    trainer = train(tmp_path, config)
    harmful = ("explain your reasoning", "Round every number", "looks redundant")
    rejected = [
        entry
        for entry in trainer.rejected.to_json()
        if any(h in entry["edit"]["content"] or h in entry["edit"]["rationale"] for h in harmful)
    ]
    assert rejected, "the seeded optimizer proposed a harmful edit and the gate rejected it"
    assert all(entry["delta"] <= 0 for entry in rejected)
    best = (tmp_path / "best_skill.md").read_text()
    assert "explain your reasoning" not in best and "Round every number" not in best


def test_protected_slow_update_block_is_never_touched_by_step_edits(tmp_path: Path) -> None:
    config = replace(FAST, epochs=3, slow_update_gated=False)
    train(tmp_path, config)
    best = (tmp_path / "best_skill.md").read_text()
    assert "<!-- skillopt:protected slow-update -->" in best


class Interrupting:
    """Target wrapper that simulates a kill after ``limit`` calls (mid-step)."""

    def __init__(self, inner, limit: int) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.limit, self.calls = inner, limit, 0
        self.name, self.model = inner.name, inner.model

    def complete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        if self.calls > self.limit:
            raise KeyboardInterrupt
        return self.inner.complete(request)

    def health_check(self) -> None:
        return None


@pytest.mark.parametrize("limit", [45, 170])
def test_killed_run_resumes_to_the_same_best_skill(tmp_path: Path, limit: int) -> None:
    straight = train(tmp_path / "straight")
    roles = Roles(
        optimizer=create_backend("mock"), target=Interrupting(create_backend("mock"), limit)
    )
    with pytest.raises(KeyboardInterrupt):
        train(tmp_path / "resumed", roles=roles)
    state = (
        json.loads((tmp_path / "resumed" / "runtime_state.json").read_text())
        if (tmp_path / "resumed" / "runtime_state.json").exists()
        else {}
    )
    assert state.get("next_step", 0) < straight.total_steps
    train(tmp_path / "resumed")
    assert (tmp_path / "resumed" / "best_skill.md").read_text() == (
        tmp_path / "straight" / "best_skill.md"
    ).read_text()
    assert json.loads((tmp_path / "resumed" / "history.json").read_text()) == json.loads(
        (tmp_path / "straight" / "history.json").read_text()
    )


def test_resuming_with_different_settings_is_refused(tmp_path: Path) -> None:
    train(tmp_path, replace(FAST, epochs=1))
    with pytest.raises(ConfigError, match="different settings"):
        Trainer(
            replace(FAST, epochs=1, batch_size=8),
            QAEnvironment(TOY),
            mock_roles(),
            RunDir(tmp_path),
            SEED_SKILL,
        )


class Budgeted:
    def __init__(self, inner, calls: int) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.left = inner, calls
        self.name, self.model = inner.name, inner.model

    def complete(self, request: CompletionRequest) -> Completion:
        if self.left == 0:
            raise BudgetExceeded("max calls reached")
        self.left -= 1
        return self.inner.complete(request)

    def health_check(self) -> None:
        return None


def test_budget_ends_the_run_cleanly_with_what_was_learned(tmp_path: Path) -> None:
    mock = create_backend("mock")
    shared = Budgeted(mock, 200)
    trainer = train(tmp_path, roles=Roles(optimizer=shared, target=shared))
    state = json.loads((tmp_path / "runtime_state.json").read_text())
    assert state["stopped_reason"].startswith("budget")
    assert (tmp_path / "best_skill.md").is_file()
    assert state["next_step"] < trainer.total_steps


class Dead:
    name, model = "dead", "x"

    def complete(self, request: CompletionRequest) -> Completion:
        raise BackendUnavailable("connection refused", hint="start the server")

    def health_check(self) -> None:
        raise BackendUnavailable("connection refused", hint="start the server")


def test_dead_backend_fails_the_run_instead_of_scoring_zero(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="connection refused"):
        train(tmp_path, roles=Roles(optimizer=create_backend("mock"), target=Dead()))
    assert (
        not (tmp_path / "history.json").exists()
        or json.loads((tmp_path / "history.json").read_text()) == []
    )


def test_a_budget_stopped_run_resumes_when_rerun_with_more_budget(tmp_path: Path) -> None:
    shared = Budgeted(create_backend("mock"), 200)
    train(tmp_path, roles=Roles(optimizer=shared, target=shared))
    finished = train(tmp_path)
    state = json.loads((tmp_path / "runtime_state.json").read_text())
    assert state["stopped_reason"] == ""
    assert state["next_step"] == finished.total_steps


class Chatty:
    """An optimizer that answers every reflection with prose, never with JSON edits."""

    name, model = "chatty", "c-1"

    def __init__(self) -> None:
        self.inner = create_backend("mock")
        self.reflections = 0

    def complete(self, request: CompletionRequest) -> Completion:
        if request.purpose == "reflect":
            self.reflections += 1
            return Completion(text="Sure! I think the skill looks great as it is.")
        return self.inner.complete(request)

    def health_check(self) -> None:
        return None


def test_an_optimizer_that_never_answers_usably_stops_the_run(tmp_path: Path) -> None:
    chatty = Chatty()
    trainer = Trainer(
        FAST,
        QAEnvironment(TOY),
        Roles(chatty, create_backend("mock")),
        RunDir(tmp_path),
        SEED_SKILL,
    )
    result = trainer.fit()
    assert isinstance(result.stop_error, NoEvidenceError) and result.stop_error.exit_code == 7
    assert result.stopped_reason.startswith("no usable edits: the optimizer chatty:c-1")
    assert len(result.history) == 1, "stopped after the first step instead of all four"
    assert result.history[0]["minibatches"] == len(result.history[0]["dropped_minibatches"])
    state = json.loads((tmp_path / "runtime_state.json").read_text())
    assert state["stopped_reason"] == result.stopped_reason


def test_a_budget_stop_carries_its_error(tmp_path: Path) -> None:
    shared = Budgeted(create_backend("mock"), 200)
    trainer = Trainer(FAST, QAEnvironment(TOY), Roles(shared, shared), RunDir(tmp_path), SEED_SKILL)
    result = trainer.fit()
    assert isinstance(result.stop_error, BudgetExceeded) and result.stop_error.exit_code == 4


def test_resuming_on_other_data_is_refused(tmp_path: Path) -> None:
    env = QAEnvironment(TOY)
    one = replace(FAST, epochs=1)
    Trainer(one, env, mock_roles(), RunDir(tmp_path), SEED_SKILL, data_identity="a").fit()
    with pytest.raises(ConfigError, match="different items"):
        Trainer(one, env, mock_roles(), RunDir(tmp_path), SEED_SKILL, data_identity="b")
    Trainer(one, env, mock_roles(), RunDir(tmp_path), SEED_SKILL)  # no identity: not checked
    assert items_digest(env) == items_digest(QAEnvironment(TOY))


def test_a_cache_entry_of_the_wrong_shape_is_evaluated_again() -> None:
    from skillopt_core.optim.evaluate import Evaluator
    from skillopt_core.skill import skill_hash

    cache: dict[str, dict[str, int]] = {}
    evaluator = Evaluator(QAEnvironment(TOY), create_backend("mock"), cache=cache)
    key = evaluator.cache_key(SEED_SKILL, "val")
    assert key.startswith(f"{skill_hash(SEED_SKILL)}|val|1|")
    cache[key] = {"bogus": 1}
    assert evaluator.evaluate(SEED_SKILL, "val").n == 35
    assert "bogus" not in cache[key]


def test_a_run_resumed_with_another_target_model_does_not_reuse_its_scores() -> None:
    """The cache was keyed by skill, split and samples alone: a resumed ``skillopt train`` with
    another ``--target`` took the first model's validation scores as its own."""
    from skillopt_core.optim.evaluate import Evaluator

    cache: dict[str, dict[str, int]] = {}
    first = Evaluator(QAEnvironment(TOY), create_backend("mock:one"), cache=cache)
    other = Evaluator(QAEnvironment(TOY), create_backend("mock:two"), cache=cache)
    assert first.cache_key(SEED_SKILL, "val") != other.cache_key(SEED_SKILL, "val")
