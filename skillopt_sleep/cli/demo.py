"""`skillopt-sleep demo`: the deterministic proof on a simulated researcher, offline, no API key.

Runs ``experiments.run_experiment`` for one persona: its days are written as genuine Claude Code
and Codex transcripts into a temporary home, then N nights of the real pipeline (harvest -> mine
-> replay -> gated edits -> stage -> adopt) run on the ``mock`` backend, and the persona's held-out
requests are scored before night 1 and after each night. Exits 1 unless held-out improves with its
interval above zero and the gate rejected a harmful edit the simulated optimizer proposed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._run import fail, handle_errors


def _experiments() -> None:
    """Make ``experiments`` importable from a source checkout (it ships beside the packages)."""
    try:
        import experiments  # noqa: F401
    except ImportError:
        checkout = Path(__file__).resolve().parents[2]
        if (checkout / "experiments" / "personas").is_dir():
            sys.path.insert(0, str(checkout))
        else:
            raise fail(
                "the experiments package is not installed with this copy of skillopt-sleep",
                1,
                "run the demo from a source checkout: git clone ... && bash scripts/bootstrap.sh",
            ) from None


@app.command("demo")
@handle_errors
def demo_command(
    persona: str = typer.Option(
        "researcher",
        "--persona",
        help="Simulated developer: researcher, programmer, devops, data-analyst or writer.",
    ),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the simulated world."),
    nights: int = typer.Option(4, "--nights", min=1, help="Nights to run, 1 to 12."),
    keep: Path | None = typer.Option(
        None, "--keep", help="Keep the simulated world (transcripts, state, skills) here."
    ),
) -> None:
    """Watch the nightly loop improve a simulated developer's agent (offline, deterministic)."""
    _experiments()
    from experiments.personas import PERSONAS
    from experiments.run_experiment import main

    if persona not in PERSONAS:
        raise typer.BadParameter(
            f"no persona {persona!r}; choose from {', '.join(sorted(PERSONAS))}",
            param_hint="'--persona'",
        )

    argv = ["--persona", persona, "--seed", str(seed), "--nights", str(nights), "--assert-improves"]
    if keep is not None:
        argv += ["--keep", str(keep)]
    code = main(argv)
    if code:
        raise typer.Exit(code)
