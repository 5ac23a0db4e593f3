"""`skillopt`: train and evaluate skill documents with the SkillOpt loop.

Commands are thin: :mod:`skillopt_core.training` does the work and raises errors from
:mod:`skillopt_core.errors`; :func:`~skillopt_core.cli_errors.reports_errors` maps them to
``error: ...`` and their exit codes (``TRAIN_EXIT_CODES_HELP``) in one place.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from skillopt_core.cli_errors import (
    fail,
    reports_errors,
    run_app,
    run_cli,
    tolerate_narrow_terminals,
)
from skillopt_core.errors import TRAIN_EXIT_CODES_HELP, UsageError

app = typer.Typer(
    name="skillopt",
    help=(
        "Train a skill document for a frozen agent with bounded, validation-gated edits.\n\n"
        "Example (offline, no API key):\n\n"
        "  skillopt train --split-dir skillopt_core/data/toy --out-root runs/toy --backend mock\n\n"
        f"{TRAIN_EXIT_CODES_HELP}"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

BackendOpt = typer.Option(
    "mock",
    "--backend",
    help="Backend for both roles: NAME or NAME:MODEL (mock, openai:gpt-5.5, claude-cli:sonnet, ...).",
)
TrainBackendOpt = typer.Option(
    None,
    "--backend",
    help="Backend for both roles: NAME or NAME:MODEL (mock, openai:gpt-5.5, claude-cli:sonnet, ...). "
    "Default: the config's \\[backends] table, else mock.",
)
OptimizerOpt = typer.Option(
    None, "--optimizer", help="Optimizer-role backend (overrides --backend), e.g. openai:gpt-5.5."
)
TargetOpt = typer.Option(
    None, "--target", help="Target-role backend (overrides --backend), e.g. claude-cli:sonnet."
)
OptionOpt = typer.Option(
    [],
    "--option",
    help="Backend option KEY=VALUE for both roles (repeatable), e.g. base_url=http://127.0.0.1:8000/v1.",
)
SplitDirOpt = typer.Option(
    ...,
    "--split-dir",
    help="Directory with train/, val/ and test/ items.json.",
    exists=True,
    file_okay=False,
)
JsonOpt = typer.Option(False, "--json", help="Print a JSON summary instead of tables.")


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option expects KEY=VALUE, got {pair!r}")
        options[key.strip()] = value
    return options


@app.command(epilog=TRAIN_EXIT_CODES_HELP)
@reports_errors
def train(
    split_dir: Path = SplitDirOpt,
    out_root: Path = typer.Option(
        ..., "--out-root", help="Run directory; re-running the same command resumes it."
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="TOML config (see skillopt_core/config.py for keys).",
        exists=True,
        dir_okay=False,
    ),
    backend: str | None = TrainBackendOpt,
    optimizer: str | None = OptimizerOpt,
    target: str | None = TargetOpt,
    option: list[str] = OptionOpt,
    seed_skill: Path | None = typer.Option(
        None,
        "--seed-skill",
        help="Starting skill (default: seed_skill.md in the split dir, else empty).",
        exists=True,
        dir_okay=False,
    ),
    epochs: int | None = typer.Option(None, "--epochs", min=1, help="Epochs (paper default 4)."),
    batch_size: int | None = typer.Option(
        None, "--batch-size", min=1, help="Rollout batch per step (default 40)."
    ),
    minibatch_size: int | None = typer.Option(
        None, "--minibatch-size", min=1, help="Reflection minibatch (default 8)."
    ),
    eval_samples: int | None = typer.Option(
        None, "--eval-samples", min=1, help="Samples per item when gating (default 1)."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Seed for batching and the mock world."),
    workers: int | None = typer.Option(
        None, "--workers", min=1, help="Parallel model calls (default 8)."
    ),
    max_calls: int | None = typer.Option(
        None, "--max-calls", min=0, help="Hard limit on model calls for this run."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", min=0, help="Hard limit on tokens (in + out)."
    ),
    max_usd: float | None = typer.Option(
        None, "--max-usd", min=0.0, help="Hard limit on estimated cost in USD."
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print the preflight estimate (calls, tokens, USD) and exit without calling a model.",
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Train a skill on a split: rollout -> reflect -> bounded edits -> gate, for N epochs."""
    from skillopt_core.training import TrainRequest, resolve_backends, resolve_config

    request = TrainRequest(
        split_dir=split_dir,
        out_root=out_root,
        config_path=config,
        backend=backend,
        optimizer=optimizer,
        target=target,
        options=_parse_options(option),
        seed_skill=seed_skill,
        overrides={
            "epochs": epochs,
            "batch_size": batch_size,
            "minibatch_size": minibatch_size,
            "eval_samples": eval_samples,
            "seed": seed,
            "workers": workers,
        },
        limits={"max_calls": max_calls, "max_tokens": max_tokens, "max_usd": max_usd},
    )
    request = resolve_backends(request)
    train_config = resolve_config(request)
    if dry_run:
        _print_preflight(request, train_config, as_json)
        return
    _run_training(request, train_config, as_json)


def _print_preflight(request: Any, train_config: Any, as_json: bool) -> None:
    from skillopt_core.backends.runtime import Budget
    from skillopt_core.training import dry_run

    estimate = dry_run(request, train_config)
    problems = estimate.over_budget(
        Budget(**{k: v for k, v in request.limits.items() if v is not None})
    )
    if as_json:
        payload = {
            "calls": estimate.calls,
            "input_tokens": estimate.input_tokens,
            "output_tokens": estimate.output_tokens,
            "cost_usd": round(estimate.cost_usd, 4),
            "groups": [
                {
                    "role": g.group.role,
                    "purpose": g.group.purpose,
                    "calls": g.group.calls,
                    "input_tokens": g.input_tokens,
                    "output_tokens": g.output_tokens,
                    "cost_usd": round(g.cost_usd, 4),
                }
                for g in estimate.groups
            ],
            "budget_problems": problems,
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    typer.echo("Preflight estimate (upper bounds; no model was called):")
    for line in estimate.lines():
        typer.echo(f"  {line}")
    for problem in problems:
        typer.secho(
            f"  budget: {problem} (the run would stop early, keeping what it learned)",
            fg=typer.colors.YELLOW,
        )


def _run_training(request: Any, train_config: Any, as_json: bool) -> None:
    from skillopt_core._train_view import render_summary, step_progress
    from skillopt_core.interrupts import sigterm_interrupts
    from skillopt_core.training import run_training, summary_json

    # a SIGTERM (a shutdown, `kill`) unwinds like Ctrl-C: exit 143, resumable, never a bare kill
    with (
        sigterm_interrupts(),
        step_progress(enabled=not as_json and sys.stderr.isatty()) as on_step,
    ):
        summary = run_training(request, train_config, on_step)
    if as_json:
        typer.echo(json.dumps(summary_json(summary), indent=2))
    else:
        render_summary(summary)
    if summary.stop_error is not None:
        raise fail(summary.stop_error)


@app.command("eval", epilog=TRAIN_EXIT_CODES_HELP)
@reports_errors
def evaluate(
    skill: Path = typer.Option(
        ..., "--skill", help="Skill document to evaluate.", exists=True, dir_okay=False
    ),
    split_dir: Path = SplitDirOpt,
    split: str = typer.Option(
        "all", "--split", help="valid_unseen (test) | valid_seen (val) | train | all."
    ),
    backend: str = BackendOpt,
    target: str | None = TargetOpt,
    option: list[str] = OptionOpt,
    samples: int = typer.Option(
        1, "--samples", min=1, help="Rollouts per item (scores are averaged)."
    ),
    workers: int = typer.Option(8, "--workers", min=1, help="Parallel model calls."),
    as_json: bool = JsonOpt,
) -> None:
    """Score a skill on one or all splits without training."""
    from skillopt_core.backends.runtime import open_roles
    from skillopt_core.envs import create_environment
    from skillopt_core.envs.base import canonical_split
    from skillopt_core.optim.evaluate import Evaluator

    splits = ["train", "val", "test"] if split == "all" else [split]
    for name in splits:
        canonical_split(name)
    roles = open_roles(backend, target or backend, _parse_options(option))
    env = create_environment("qa", {"split_dir": split_dir})
    evaluator = Evaluator(env, roles.target, samples=samples, workers=workers)
    try:
        text = skill.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--skill {skill} is not UTF-8 text ({exc.reason})") from None
    from skillopt_core.interrupts import sigterm_interrupts

    results = {}
    with sigterm_interrupts():
        for name in splits:
            result = evaluator.evaluate(text, canonical_split(name))
            results[name] = {"hard": result.hard, "soft": result.soft, "n": result.n}
    if as_json:
        typer.echo(
            json.dumps(
                {"skill": str(skill), "target": str(target or backend), "splits": results}, indent=2
            )
        )
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(f"{skill} on {target or backend}"))
    for column in ("split", "hard (EM)", "soft (F1)", "items"):
        table.add_column(column)
    for name, r in results.items():
        table.add_row(name, f"{r['hard']:.3f}", f"{r['soft']:.3f}", str(r["n"]))
    Console(emoji=False).print(table)


def main() -> None:
    tolerate_narrow_terminals()
    run_cli(lambda: run_app(app))
