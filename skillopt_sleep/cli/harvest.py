"""`skillopt-sleep harvest`: show (or record) the sessions a night would harvest for a project.

By default the project's index is only read, never advanced, so looking does not consume what the
next night will mine; ``--commit`` advances it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import (
    CLAUDE_HOME,
    CODEX_HOME,
    COPILOT_HOME,
    PROJECT,
    SINCE,
    STATE_DIR,
    VSCODE_HOME,
    harness_homes,
    project_root,
)

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.harvest import HarvestResult

SOURCE_CHOICES = ("claude", "codex", "copilot", "all")


@app.command("harvest")
def harvest_command(
    project: Path | None = PROJECT,
    source: list[str] = typer.Option(
        ["all"], "--source", "-s", help="claude | codex | copilot | all (repeatable)."
    ),
    since: str | None = SINCE,
    as_json: bool = typer.Option(False, "--json", help="Print the sessions as JSON on stdout."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the sessions as JSON to this file."
    ),
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
    state_dir: Path | None = STATE_DIR,
    commit: bool = typer.Option(False, "--commit", help="Advance the index (what a night does)."),
    include_sidechains: bool = typer.Option(
        False, "--include-sidechains", help="Keep sub-agent records."
    ),
) -> None:
    """Harvest new transcript sessions of a project (redacted) and summarise them per harness."""
    from rich.console import Console

    from skillopt_sleep.harvest import harvest, parse_since
    from skillopt_sleep.jsonable import dumps

    unknown = [s for s in source if s not in SOURCE_CHOICES]
    if unknown:
        raise typer.BadParameter(
            f"unknown source {unknown[0]!r}; choose from {', '.join(SOURCE_CHOICES)}"
        )
    try:
        parse_since(since)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    root = project_root(project)
    homes = harness_homes(claude_home, codex_home, copilot_home, vscode_home)
    err = Console(stderr=True)
    result = _run_with_progress(
        err,
        lambda progress: harvest(
            root,
            sources=tuple(source),
            since=since,
            index=state_dir,
            homes=homes,
            include_sidechains=include_sidechains,
            commit=commit,
            progress=progress,
        ),
    )
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(dumps(list(result.sessions), indent=2) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(dumps(list(result.sessions), indent=2))
    _summary(err if as_json else Console(), result)


def _run_with_progress(console: Console, work: Any) -> HarvestResult:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(f"harvest {name}", total=total)
            bar.update(tasks[name], completed=done, total=total)

        result: HarvestResult = work(update)
    return result


def _summary(console: Console, result: HarvestResult) -> None:
    from rich.table import Table

    table = Table(title="Harvest summary")
    for column in (
        "harness",
        "files read",
        "sessions",
        "turns",
        "tool calls",
        "tool errors",
        "corrections",
    ):
        table.add_column(column, justify="left" if column == "harness" else "right")
    table.add_column("skipped lines", justify="right")
    table.add_column("skipped files", justify="right")
    for stats in result.stats.values():
        table.add_row(
            stats.harness,
            f"{stats.files_read}/{stats.files_seen}",
            str(stats.sessions),
            str(stats.turns),
            str(stats.tool_calls),
            str(stats.tool_errors),
            str(stats.corrections),
            str(stats.skipped_line_count),
            str(sum(stats.skipped_files.values())),
        )
    console.print(table)
    for stats in result.stats.values():
        for label, reasons in (
            ("skipped lines", stats.skipped_lines),
            ("skipped files", stats.skipped_files),
            ("sessions not kept", stats.skipped_sessions),
        ):
            if reasons:
                detail = ", ".join(f"{reason}: {count}" for reason, count in reasons.items())
                console.print(f"  {stats.harness} {label}: {detail}")
