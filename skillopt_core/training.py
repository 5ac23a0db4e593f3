"""Orchestrate one `skillopt train` run: config + overrides, environment, roles, trainer, summary.

Raises instead of printing; the CLI maps exceptions to exit codes and renders the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillopt_core.backends import BudgetExceeded
from skillopt_core.backends.preflight import PreflightEstimate, preflight, role_prices
from skillopt_core.backends.runtime import Budget, Roles, open_roles
from skillopt_core.config import TrainConfig, load_backend_choice, load_config, validate
from skillopt_core.envs import create_environment
from skillopt_core.envs.base import Environment
from skillopt_core.lock import exclusive
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.trainer import StepCallback, Trainer
from skillopt_core.plan import training_plan
from skillopt_core.rundir import RunDir, atomic_write_json


@dataclass(frozen=True)
class TrainRequest:
    split_dir: Path
    out_root: Path
    config_path: Path | None = None
    backend: str | None = None
    optimizer: str | None = None
    target: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    seed_skill: Path | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Any] = field(default_factory=dict)

    @property
    def optimizer_spec(self) -> str:
        return self.optimizer or self.backend or "mock"

    @property
    def target_spec(self) -> str:
        return self.target or self.backend or "mock"


@dataclass(frozen=True)
class SplitScores:
    hard: float
    soft: float


@dataclass(frozen=True)
class TrainingSummary:
    run_dir: Path
    optimizer: str
    target: str
    steps: int
    stopped_reason: str
    baseline: dict[str, SplitScores | None]
    final: dict[str, SplitScores | None]
    accepted: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    best_skill_path: Path
    usage: dict[str, Any]


def resolve_backends(request: TrainRequest) -> TrainRequest:
    """Fill the roles from the config's ``[backends]`` table where no flag named them."""
    choice = load_backend_choice(request.config_path)
    fallback = request.backend or "mock"
    return replace(
        request,
        backend=fallback,
        optimizer=request.optimizer or (None if request.backend else choice.optimizer) or fallback,
        target=request.target or (None if request.backend else choice.target) or fallback,
        options={**choice.options, **request.options},
    )


def resolve_config(request: TrainRequest) -> TrainConfig:
    config = load_config(request.config_path)
    overrides = {k: v for k, v in request.overrides.items() if v is not None}
    return validate(replace(config, **overrides))


def resolve_seed_skill(request: TrainRequest, config: TrainConfig) -> str:
    for candidate in (
        request.seed_skill,
        Path(config.seed_skill) if config.seed_skill else None,
        request.split_dir / "seed_skill.md",
    ):
        if candidate is not None and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    return ""


def open_run_roles(request: TrainRequest, config: TrainConfig) -> Roles:
    options = {"seed": config.seed, **request.options}
    budget = Budget(**{k: v for k, v in request.limits.items() if v is not None})
    return open_roles(request.optimizer_spec, request.target_spec, options, budget)


def run_training(
    request: TrainRequest, roles: Roles, config: TrainConfig, on_step: StepCallback | None = None
) -> TrainingSummary:
    env = create_environment(config.env, {"split_dir": request.split_dir})
    seed_skill = resolve_seed_skill(request, config)
    run_dir = RunDir(request.out_root)
    with exclusive(run_dir.root, "skillopt train"):
        return _train_locked(run_dir, env, roles, config, seed_skill, on_step)


def _train_locked(
    run_dir: RunDir,
    env: Environment,
    roles: Roles,
    config: TrainConfig,
    seed_skill: str,
    on_step: StepCallback | None,
) -> TrainingSummary:
    trainer = Trainer(config, env, roles, run_dir, seed_skill, on_step=on_step)
    try:
        result = trainer.fit()
        baseline = {
            split: _scores(trainer.evaluator, seed_skill, split) for split in ("val", "test")
        }
        final = {
            split: _scores(trainer.evaluator, result.best_skill, split) for split in ("val", "test")
        }
    finally:
        roles.ledger.write_json(run_dir.root / "ledger.json")
    summary = TrainingSummary(
        run_dir=run_dir.root,
        optimizer=f"{roles.optimizer.name}:{roles.optimizer.model}",
        target=f"{roles.target.name}:{roles.target.model}",
        steps=len(result.history),
        stopped_reason=result.stopped_reason,
        baseline=baseline,
        final=final,
        accepted=result.accepted,
        rejected=result.rejected,
        best_skill_path=run_dir.best_skill,
        usage=roles.ledger.summary()["totals"],
    )
    atomic_write_json(run_dir.root / "summary.json", summary_json(summary))
    return summary


def _scores(evaluator: Evaluator, skill: str, split: str) -> SplitScores | None:
    """Scores for the summary; None when the budget is spent (a stopped run still reports)."""
    try:
        result = evaluator.evaluate(skill, split)
    except BudgetExceeded:
        return None
    return SplitScores(result.hard, result.soft)


def summary_json(summary: TrainingSummary) -> dict[str, Any]:
    return {
        "run_dir": str(summary.run_dir),
        "optimizer": summary.optimizer,
        "target": summary.target,
        "steps": summary.steps,
        "stopped_reason": summary.stopped_reason,
        "baseline": {k: v and vars(v) for k, v in summary.baseline.items()},
        "final": {k: v and vars(v) for k, v in summary.final.items()},
        "accepted_edits": summary.accepted,
        "rejected_edits": summary.rejected,
        "best_skill": str(summary.best_skill_path),
        "usage": summary.usage,
    }


def dry_run(request: TrainRequest, config: TrainConfig) -> PreflightEstimate:
    """Estimate the calls, tokens and cost of a run without making any model call."""
    env = create_environment(config.env, {"split_dir": request.split_dir})
    roles = open_roles(
        request.optimizer_spec,
        request.target_spec,
        {"seed": config.seed, **request.options},
        check_health=False,
    )
    return preflight(
        training_plan(config, env, resolve_seed_skill(request, config)), role_prices(roles)
    )
