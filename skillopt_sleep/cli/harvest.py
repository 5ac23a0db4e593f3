"""`skillopt-sleep harvest`: show (or record) the sessions a night would harvest for a project.

By default the project's index is only read, never advanced, so looking does not consume what the
next night will mine; ``--commit`` advances it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
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
    checked_since,
    escape,
    exits_on_error,
    harness_homes,
    project_root,
    terminal,
)

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.harvest import HarvestRun, HarvestStats

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
    commit: bool = typer.Option(
        False,
        "--commit",
        help="Advance the index (what a night does), once the output is safely written.",
    ),
    include_sidechains: bool = typer.Option(
        False, "--include-sidechains", help="Keep sub-agent records."
    ),
) -> None:
    """Harvest new transcript sessions of a project (redacted) and summarise them per harness.

    Sessions stream to --json / --output as they are read. With --commit the index advances only
    after every output is written and synced, so a failed or killed run delivers them again.
    """
    unknown = [s for s in source if s not in SOURCE_CHOICES]
    if unknown:
        raise typer.BadParameter(
            f"unknown source {unknown[0]!r}; choose from {', '.join(SOURCE_CHOICES)}"
        )
    checked_since(since)
    root = project_root(project)
    homes = harness_homes(claude_home, codex_home, copilot_home, vscode_home)
    with exits_on_error():
        stats = _harvest(
            root,
            tuple(source),
            since,
            state_dir,
            homes,
            include_sidechains,
            commit=commit,
            as_json=as_json,
            output=output,
        )
    _summary(terminal(stderr=as_json), stats)


def _harvest(
    root: Path,
    sources: tuple[str, ...],
    since: str | None,
    state_dir: Path | None,
    homes: dict[str, Path],
    include_sidechains: bool,
    *,
    commit: bool,
    as_json: bool,
    output: Path | None,
) -> Mapping[str, HarvestStats]:
    """Stream the run's sessions to the sinks, close them durably, then (maybe) commit."""
    from skillopt_sleep.harvest import HarvestRun, open_index
    from skillopt_sleep.harvest._output import JsonSink

    with contextlib.ExitStack() as stack:
        index = stack.enter_context(open_index(root, state_dir))
        if commit:
            stack.enter_context(index.locked())
        sinks = [JsonSink(output)] if output is not None else []
        if as_json:
            sinks.append(JsonSink(None))
        try:
            run = HarvestRun(
                root,
                sources,
                since,
                index,
                homes=homes,
                include_sidechains=include_sidechains,
                record=commit,
            )
            with _progress(terminal(stderr=True), run):
                for session in run:
                    for sink in sinks:
                        sink.write(session)
            for sink in sinks:
                sink.close()
        except BaseException:
            for sink in sinks:
                sink.abort()
            index.rollback()
            raise
        if commit:
            index.commit()
        return run.stats


@contextlib.contextmanager
def _progress(console: Console, run: HarvestRun) -> Iterator[None]:
    """A transient progress bar fed by the run (only on a terminal: none in pipes and logs)."""
    if not console.is_terminal:
        yield
        return
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
                tasks[name] = bar.add_task(f"harvest {escape(name)}", total=total)
            bar.update(tasks[name], completed=done, total=total)

        run.progress = update
        yield


def _summary(console: Console, stats_by_harness: Mapping[str, HarvestStats]) -> None:
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
    for stats in stats_by_harness.values():
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
    for stats in stats_by_harness.values():
        for label, reasons in (
            ("skipped lines", stats.skipped_lines),
            ("skipped files", stats.skipped_files),
            ("sessions not kept", stats.skipped_sessions),
        ):
            if reasons:
                detail = ", ".join(f"{reason}: {count}" for reason, count in reasons.items())
                console.print(escape(f"  {stats.harness} {label}: {detail}"))
