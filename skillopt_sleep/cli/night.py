"""`skillopt-sleep run`, `dry-run`, `status`, `proposals`, `report`, `adopt`, `reject`, `rollback`.

Thin over :mod:`skillopt_sleep.engine`: parse flags, call the library, render the record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import (
    CLAUDE_HOME,
    CODEX_HOME,
    COPILOT_HOME,
    PROJECT,
    VSCODE_HOME,
    project_root,
)
from skillopt_sleep.cli._run import emit_json, handle_errors, load, progress_bar

JSON = typer.Option(False, "--json", help="Print the result as JSON on stdout.")
PROPOSAL = typer.Argument(None, help="Proposal id (a night id; default: the latest that applies).")
OPTIMIZER = typer.Option(None, "--optimizer", help="Backend that reflects and edits, NAME[:MODEL].")
TARGET = typer.Option(None, "--target", help="Backend that replays your tasks, NAME[:MODEL].")
BACKEND = typer.Option(
    None, "--backend", help="One backend for both roles (e.g. mock, claude-cli)."
)
JUDGE = typer.Option(None, "--judge", help="Backend that judges rubrics ('' = rule checks only).")
SOURCES = typer.Option(None, "--source", help="claude | codex | copilot | all, or a comma list.")
MAX_CALLS = typer.Option(None, "--max-calls", help="Hard limit on model calls tonight.")
MAX_USD = typer.Option(None, "--max-usd", help="Hard limit on estimated USD tonight.")
MAX_TASKS = typer.Option(None, "--max-tasks", help="Most training tasks replayed tonight.")
SAMPLES = typer.Option(None, "--samples", help="Replays per task (K).")
EMBEDDER = typer.Option(None, "--embedder", help="auto | minilm | tfidf | jaccard.")
MEMORY = typer.Option(None, "--memory/--no-memory", help="Also improve CLAUDE.md / AGENTS.md.")


def _run(project: Path | None, dry_run: bool, as_json: bool, flags: dict[str, Any]) -> None:
    from skillopt_sleep.engine import run_night

    root = project_root(project)
    config = load(root, flags)
    with progress_bar(not as_json) as progress:
        report = run_night(root, config, dry_run=dry_run, progress=progress)
    if as_json:
        emit_json(report)
        return
    from skillopt_sleep.cli._render import night_summary

    night_summary(report)


@app.command("run")
@handle_errors
def run_command(
    project: Path | None = PROJECT,
    as_json: bool = JSON,
    backend: str | None = BACKEND,
    optimizer: str | None = OPTIMIZER,
    target: str | None = TARGET,
    judge: str | None = JUDGE,
    sources: str | None = SOURCES,
    max_calls: int | None = MAX_CALLS,
    max_usd: float | None = MAX_USD,
    max_tasks: int | None = MAX_TASKS,
    samples: int | None = SAMPLES,
    embedder: str | None = EMBEDDER,
    memory: bool | None = MEMORY,
    auto_adopt: bool | None = typer.Option(
        None, "--auto-adopt/--no-auto-adopt", help="Adopt the proposal at once (opt-in)."
    ),
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
) -> None:
    """Run one night: harvest -> mine -> replay -> gated edits -> stage a proposal to adopt."""
    flags = {k: v for k, v in locals().items() if k not in ("project", "as_json")}
    _run(project, False, as_json, flags)


@app.command("dry-run")
@handle_errors
def dry_run_command(
    project: Path | None = PROJECT,
    as_json: bool = JSON,
    backend: str | None = BACKEND,
    optimizer: str | None = OPTIMIZER,
    target: str | None = TARGET,
    judge: str | None = JUDGE,
    sources: str | None = SOURCES,
    max_calls: int | None = MAX_CALLS,
    max_usd: float | None = MAX_USD,
    max_tasks: int | None = MAX_TASKS,
    samples: int | None = SAMPLES,
    embedder: str | None = EMBEDDER,
    memory: bool | None = MEMORY,
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
) -> None:
    """Everything a night does except staging: nothing is proposed, no state advances."""
    flags = {k: v for k, v in locals().items() if k not in ("project", "as_json")}
    _run(project, True, as_json, flags)


@app.command("status")
@handle_errors
def status_command(project: Path | None = PROJECT, as_json: bool = JSON) -> None:
    """The last nights, pending proposals, the schedule, backends and the archive (fast)."""
    from skillopt_sleep.engine import status

    result = status(project_root(project))
    if as_json:
        emit_json(result)
        return
    from skillopt_sleep.cli._render import status_table

    status_table(result)


@app.command("proposals")
@handle_errors
def proposals_command(project: Path | None = PROJECT, as_json: bool = JSON) -> None:
    """Every staged proposal and its state (pending, adopted, rejected, rolled back)."""
    from skillopt_sleep.engine import list_proposals

    found = list_proposals(project_root(project))
    if as_json:
        emit_json(found)
        return
    from skillopt_sleep.cli._render import proposals_table

    proposals_table(found)


@app.command("report")
@handle_errors
def report_command(
    proposal: str | None = PROPOSAL,
    project: Path | None = PROJECT,
    kind: str = typer.Option("md", "--format", help="md | html | json: which report to show."),
    path_only: bool = typer.Option(False, "--path", help="Print the report's path only."),
    as_json: bool = JSON,
) -> None:
    """Show a staged proposal's report (markdown on the terminal; --format html for a browser)."""
    from skillopt_sleep.engine import report_path

    path = report_path(project_root(project), proposal, "json" if as_json else kind)
    typer.echo(str(path) if path_only else path.read_text(encoding="utf-8"))


def _adoption(action: str, result: Any, as_json: bool) -> None:
    if as_json:
        emit_json(result)
        return
    typer.echo(f"{action} {result.proposal}: " + ", ".join(result.files))
    if result.backup_dir:
        typer.echo(f"backup: {result.backup_dir}")


@app.command("adopt")
@handle_errors
def adopt_command(
    proposal: str | None = PROPOSAL,
    project: Path | None = PROJECT,
    force: bool = typer.Option(
        False, "--force", help="Adopt even if a live file changed (shows a three-way diff first)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="With --force: do not ask."),
    as_json: bool = JSON,
) -> None:
    """Replace the live files with the proposal (atomic, backed up, journaled)."""
    from skillopt_sleep.engine import adopt, three_way_diff

    root = project_root(project)
    if force:
        typer.echo(three_way_diff(root, proposal), err=as_json)
        if not yes and not typer.confirm("Adopt over these live changes?", err=True):
            raise typer.Exit(1)
    _adoption("adopted", adopt(root, proposal, force=force), as_json)


@app.command("reject")
@handle_errors
def reject_command(
    proposal: str | None = PROPOSAL, project: Path | None = PROJECT, as_json: bool = JSON
) -> None:
    """Decline a proposal; its edits join the rejected buffer and are not proposed again."""
    from skillopt_sleep.engine import reject

    _adoption("rejected", reject(project_root(project), proposal), as_json)


@app.command("rollback")
@handle_errors
def rollback_command(
    proposal: str | None = PROPOSAL, project: Path | None = PROJECT, as_json: bool = JSON
) -> None:
    """Restore the files an adopted proposal replaced, byte for byte."""
    from skillopt_sleep.engine import rollback

    _adoption("rolled back", rollback(project_root(project), proposal), as_json)
