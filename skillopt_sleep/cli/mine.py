"""`skillopt-sleep mine`: harvest a project's sessions, then show the recurring task families.

Like ``harvest``, it only reads the harvest index (a night advances it); the miner's archive
merges what it has already seen, so running it twice shows the same families, not doubled ones.
Its numbers are checked before anything is read: a threshold outside (0, 1) or a family size
below 1 is a usage error (exit 2), never a night of everything merged into one family.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    escape,
    exits_on_error,
    harness_homes,
    project_root,
    terminal,
)
from skillopt_sleep.cli._run import handle_errors, progress_bar

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.mine import MineResult


def _similarity(value: float | None) -> float | None:
    """``--threshold``: embedders score similarity in [0, 1]; at 0 every request joins one
    family, and the clusterer needs room below 1 (identical). NaN is refused too."""
    if value is not None and not 0.0 < value < 1.0:
        raise typer.BadParameter(f"{value} is not a similarity strictly between 0 and 1")
    return value


@app.command("mine")
@handle_errors
def mine_command(
    project: Path | None = PROJECT,
    source: list[str] = typer.Option(
        ["all"],
        "--source",
        "-s",
        help="claude | codex | copilot | vscode | all: repeat it or give a comma list.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the tasks as JSON on stdout."),
    embedder: str | None = typer.Option(
        None,
        "--embedder",
        "-e",
        help="auto | mpnet | minilm-numpy | minilm | static | tfidf | jaccard (default: mine.embedder in "
        "the config, as a night mines).",
        show_default=False,
    ),
    model: str = typer.Option(
        "", "--model", help="Local model directory for minilm (never downloaded)."
    ),
    threshold: float | None = typer.Option(
        None,
        "--threshold",
        callback=_similarity,
        help="Similarity to join a family, between 0 and 1 (default: per embedder).",
    ),
    min_family_size: int | None = typer.Option(
        None,
        "--min-family-size",
        min=1,
        help="Occasions a request needs to be replayed (default: mine.min_family_size in the "
        "config, 2).",
        show_default=False,
    ),
    include_one_offs: bool = typer.Option(
        False, "--include-one-offs", help="Also replay requests seen once."
    ),
    optimizer: str | None = typer.Option(
        None, "--optimizer", help="Backend spec that designs the judges (default: heuristic)."
    ),
    since: str | None = SINCE,
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
    state_dir: Path | None = STATE_DIR,
    archive_path: Path | None = typer.Option(
        None, "--archive", help="Miner archive file (default: in the project state dir)."
    ),
) -> None:
    """Find the requests a project's developer makes again and again, and how each would be judged."""
    from skillopt_sleep._display import displayable_json
    from skillopt_sleep.cli._profile import overrides
    from skillopt_sleep.cli._render import missing_project_note
    from skillopt_sleep.cli.harvest import (
        checked_sources,  # the sources and window as harvest reads
    )
    from skillopt_sleep.engine import ProjectState, load_config, preview_families
    from skillopt_sleep.harvest import missing_home_notes
    from skillopt_sleep.jsonable import dumps
    from skillopt_sleep.mine import MineConfig

    sources = checked_sources(source, since)
    console = terminal(stderr=as_json)
    root = project_root(project)
    homes = harness_homes(claude_home, codex_home, copilot_home, vscode_home)
    with exits_on_error(), progress_bar(True) as progress:
        config = load_config(root, overrides(**{f"{k}_home": v for k, v in homes.items()}))
        backend = None
        if optimizer:
            from skillopt_core.backends.runtime import open_roles

            backend = open_roles(optimizer, optimizer).optimizer
        result = preview_families(
            root,
            config,
            sources=sources,
            since=since,
            index_dir=state_dir,
            mine_config=MineConfig(  # the night's settings unless a flag says otherwise
                embedder=embedder or config.mine.embedder,
                model=model,
                threshold=threshold,
                min_family_size=min_family_size or config.mine.min_family_size,
                include_one_offs=include_one_offs,
                recall_k=config.mine.recall_k,
                confirm_budget=config.mine.confirm_budget,
            ),
            archive_path=archive_path or ProjectState(root).archive_path,
            optimizer=backend,
            progress=progress,
        )
    if as_json:
        typer.echo(displayable_json(dumps(list(result.tasks), indent=2)))
    _table(console, result)
    notes = missing_home_notes(sources, config.homes, config.home_origin)
    note = missing_project_note(root, int(result.stats.get("sessions", 0)))
    for said in [*notes, note] if note else notes:
        console.print(escape(said), soft_wrap=True)


def _table(console: Console, result: MineResult) -> None:
    from rich.table import Table

    stats = result.stats
    table = Table(
        title=escape(
            f"Recurring task families (embedder: {result.embedder_name},"
            f" threshold {stats.get('threshold')})"
        )
    )
    for column in ("family", "size", "example requests", "outcomes", "split", "judged by"):
        table.add_column(column, justify="right" if column == "size" else "left", overflow="fold")
    for family in sorted(result.families, key=lambda f: -f.size):
        examples = "\n".join(f"• {text[:90]}" for text in family.requests[:3])
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(family.outcomes.items()))
        splits = ", ".join(f"{k} {v}" for k, v in sorted(family.splits.items()))
        checks = "\n".join(f"{c.kind}: {c.value}" for c in family.checks[:3])
        cells = (
            family.id,
            str(family.size),
            examples,
            outcomes,
            splits,
            family.judged_by + (f"\n{checks}" if checks else ""),
        )
        table.add_row(*(escape(cell) for cell in cells))  # requests are user-written
    console.print(table)
    console.print(
        escape(
            f"{stats.get('sessions', 0)} sessions, {stats.get('candidates', 0)} requests "
            f"({stats.get('new_occurrences', 0)} new), {stats.get('families', 0)} families, "
            f"{stats.get('one_offs', 0)} one-offs not replayed, {stats.get('embedded', 0)} "
            f"embedded with {result.embedder_name}"
        )
    )
