"""Orchestrate one `skillopt train` run: config + overrides, environment, roles, trainer, summary.

Raises instead of printing; the CLI maps exceptions to exit codes and renders the summary. The
run directory owns the run: its lock, its resume state, and its ledger (``ledger.jsonl``, every
call the run made, so a resumed run continues its spend against the same budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillopt_core.backends import BudgetExceeded
from skillopt_core.backends.preflight import PreflightEstimate, preflight, role_prices
from skillopt_core.backends.runtime import Budget, Ledger, Roles, open_roles
from skillopt_core.config import (
    ConfigError,
    TrainConfig,
    load_backend_choice,
    load_config,
    validate,
)
from skillopt_core.envs import create_environment
from skillopt_core.envs.base import Environment, environment_factory, items_digest
from skillopt_core.envs.items import SplitFormatError
from skillopt_core.errors import SkillOptError, StorageError, exit_code_for
from skillopt_core.lock import exclusive
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.evidence import dropped_warning, no_edit_warning
from skillopt_core.optim.trainer import StepCallback, Trainer
from skillopt_core.plan import training_plan
from skillopt_core.rundir import RunDir, atomic_write_json, read_json

LEDGER_JOURNAL = "ledger.jsonl"


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
    # Why the run stopped early, as the error to report (its exit code: 4 budget, 7 nothing
    # usable); None when it ran to the end.
    stop_error: SkillOptError | None = field(default=None, compare=False)
    warnings: tuple[str, ...] = ()


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
    """The config file, then the flags; every value checked, and the environment known."""
    config = load_config(request.config_path)
    overrides = {k: v for k, v in request.overrides.items() if v is not None}
    config = validate(replace(config, **overrides))
    environment_factory(config.env)
    return config


def resolve_seed_skill(request: TrainRequest, config: TrainConfig) -> str:
    """The flag's seed skill, else the config's (a missing file is an error), else the split
    dir's ``seed_skill.md``, else empty."""
    if request.seed_skill is not None:
        return _read_skill(request.seed_skill, "--seed-skill")
    if config.seed_skill:
        named = Path(config.seed_skill)
        beside = request.config_path.parent / named if request.config_path else None
        for candidate in (beside, named) if not named.is_absolute() else (named,):
            if candidate is not None and candidate.is_file():
                return _read_skill(candidate, "[train] seed_skill")
        raise ConfigError(
            f"[train] seed_skill {config.seed_skill!r} does not exist"
            + (
                f" (looked next to {request.config_path} and in the working directory)"
                if beside
                else ""
            ),
            hint="fix the path, or remove seed_skill to start from the split's seed_skill.md",
        )
    default = request.split_dir / "seed_skill.md"
    return _read_skill(default, "the split's seed skill") if default.is_file() else ""


def _read_skill(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} {path} cannot be read as UTF-8 text: {exc}") from None


def open_environment(request: TrainRequest, config: TrainConfig) -> Environment:
    """The run's environment, refusing splits that leave nothing to train on or gate with."""
    env = create_environment(config.env, {"split_dir": request.split_dir})
    for split, role in (("train", "learn from"), ("val", "gate edits on")):
        if not env.items(split):
            raise SplitFormatError(
                f"the {split} split of {request.split_dir} is empty: there is nothing to {role}",
                hint=f"add items to {request.split_dir / split / 'items.json'}",
            )
    env.items("test")  # a missing or malformed test split fails now, not after training
    return env


def run_ledger(run_dir: RunDir, request: TrainRequest) -> Ledger:
    """The run's ledger: it continues the spend recorded in the run directory's journal.

    A run that already completed steps has spent calls; finding its journal empty or gone means
    the spend was lost (a truncated file), and resuming would grant the budget afresh."""
    budget = Budget(**{k: v for k, v in request.limits.items() if v is not None})
    journal = run_dir.root / LEDGER_JOURNAL
    if not journal.is_file() or journal.stat().st_size == 0:
        steps = _steps_made(run_dir)
        if steps:
            raise StorageError(
                f"the call journal {journal} is empty, but the run in {run_dir.root} already "
                f"made {steps} step(s): what it spent is unknown, so its budget cannot be kept",
                hint=f"restore {LEDGER_JOURNAL} from a backup, or delete {run_dir.root} to "
                "start over",
            )
    return Ledger(budget, journal=journal)


def _steps_made(run_dir: RunDir) -> int:
    """Steps the resume state says were completed (0 when there is none, or it is damaged: the
    trainer reports a damaged state itself)."""
    try:
        state = read_json(run_dir.state, {})
    except StorageError:
        return 0
    steps = state.get("next_step") if isinstance(state, dict) else None
    return steps if isinstance(steps, int) and steps > 0 else 0


def open_run_roles(
    request: TrainRequest, config: TrainConfig, ledger: Ledger | None = None
) -> Roles:
    options = {"seed": config.seed, **request.options}
    budget = Budget(**{k: v for k, v in request.limits.items() if v is not None})
    return open_roles(request.optimizer_spec, request.target_spec, options, budget, ledger=ledger)


def run_training(
    request: TrainRequest, config: TrainConfig, on_step: StepCallback | None = None
) -> TrainingSummary:
    """Train under the run directory's lock; the roles are opened there, on the run's ledger.

    A run that stops early (budget, nothing usable) still writes its summary; the summary's
    ``stop_error`` says why, for the caller to report with its exit code."""
    env = open_environment(request, config)
    seed_skill = resolve_seed_skill(request, config)
    run_dir = RunDir(request.out_root)
    with exclusive(run_dir.root, "skillopt train", elsewhere="use a different --out-root"):
        roles = open_run_roles(request, config, run_ledger(run_dir, request))
        return _train_locked(run_dir, env, roles, config, seed_skill, on_step)


def _train_locked(
    run_dir: RunDir,
    env: Environment,
    roles: Roles,
    config: TrainConfig,
    seed_skill: str,
    on_step: StepCallback | None,
) -> TrainingSummary:
    trainer = Trainer(
        config, env, roles, run_dir, seed_skill, on_step=on_step, data_identity=items_digest(env)
    )
    try:
        result = trainer.fit()
        stop = result.stop_error
        baseline, final = {}, {}
        for split in ("val", "test"):
            baseline[split], stop = _scores(trainer.evaluator, seed_skill, split, stop)
            final[split], stop = _scores(trainer.evaluator, result.best_skill, split, stop)
    finally:
        roles.ledger.write_json(run_dir.root / "ledger.json")
    stopped_reason = result.stopped_reason
    if stop is not None and stop is not result.stop_error:
        stopped_reason = f"budget: {stop.message} (during the final evaluation)"
    summary = TrainingSummary(
        run_dir=run_dir.root,
        optimizer=f"{roles.optimizer.name}:{roles.optimizer.model}",
        target=f"{roles.target.name}:{roles.target.model}",
        steps=len(result.history),
        stopped_reason=stopped_reason,
        baseline=baseline,
        final=final,
        accepted=result.accepted,
        rejected=result.rejected,
        best_skill_path=run_dir.best_skill,
        usage=roles.ledger.summary()["totals"],
        stop_error=stop,
        warnings=tuple(
            w for w in (dropped_warning(result.history), no_edit_warning(result.history)) if w
        ),
    )
    atomic_write_json(run_dir.root / "summary.json", summary_json(summary))
    return summary


def _scores(
    evaluator: Evaluator, skill: str, split: str, stop: SkillOptError | None
) -> tuple[SplitScores | None, SkillOptError | None]:
    """Scores for the summary, or None once the budget is spent: the stop is then reported."""
    try:
        result = evaluator.evaluate(skill, split)
    except BudgetExceeded as exc:
        return None, stop or exc
    return SplitScores(result.hard, result.soft), stop


def summary_json(summary: TrainingSummary) -> dict[str, Any]:
    return {
        "run_dir": str(summary.run_dir),
        "optimizer": summary.optimizer,
        "target": summary.target,
        "steps": summary.steps,
        "stopped_reason": summary.stopped_reason,
        "exit_code": exit_code_for(summary.stop_error) if summary.stop_error else 0,
        "warnings": list(summary.warnings),
        "baseline": {k: v and vars(v) for k, v in summary.baseline.items()},
        "final": {k: v and vars(v) for k, v in summary.final.items()},
        "accepted_edits": summary.accepted,
        "rejected_edits": summary.rejected,
        "best_skill": str(summary.best_skill_path),
        "usage": summary.usage,
    }


def dry_run(request: TrainRequest, config: TrainConfig) -> PreflightEstimate:
    """Estimate the calls, tokens and cost of a run without making any model call."""
    env = open_environment(request, config)
    roles = open_roles(
        request.optimizer_spec,
        request.target_spec,
        {"seed": config.seed, **request.options},
        check_health=False,
    )
    return preflight(
        training_plan(config, env, resolve_seed_skill(request, config)), role_prices(roles)
    )
