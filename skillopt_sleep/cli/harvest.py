"""`skillopt-sleep harvest`: show (or record) the sessions a night would harvest for a project.

By default the project's index is only read, never advanced, so looking does not consume what the
next night will mine; ``--commit`` advances it.
"""

from __future__ import annotations

from pathlib import Path

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._harvesting import SOURCE_CHOICES, harvest, unknown_source
from skillopt_sleep.cli._harvesting import _progress as _progress  # where its tests find it
from skillopt_sleep.cli._options import (
    CLAUDE_HOME,
    CODEX_HOME,
    COPILOT_HOME,
    PROJECT,
    SINCE,
    STATE_DIR,
    VSCODE_HOME,
    checked_since,
    source_names,
)
from skillopt_sleep.cli._run import handle_errors


@app.command("harvest")
@handle_errors
def harvest_command(
    project: Path | None = PROJECT,
    source: list[str] = typer.Option(
        ["all"],
        "--source",
        "-s",
        help="claude | codex | copilot | vscode | all: repeat it or give a comma list.",
    ),
    since: str | None = SINCE,
    as_json: bool = typer.Option(False, "--json", help="Print the sessions as JSON on stdout."),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the sessions as JSON to this file (its missing folders are made).",
    ),
    claude_home: Path | None = CLAUDE_HOME,
    codex_home: Path | None = CODEX_HOME,
    copilot_home: Path | None = COPILOT_HOME,
    vscode_home: Path | None = VSCODE_HOME,
    state_dir: Path | None = STATE_DIR,
    commit: bool = typer.Option(
        False,
        "--commit",
        help="Advance the index, once the output is safely written: the sessions then count "
        "as read, and no later night sees them (nights advance it themselves).",
    ),
    include_sidechains: bool = typer.Option(
        False, "--include-sidechains", help="Keep sub-agent records."
    ),
) -> None:
    """Harvest new transcript sessions of a project (redacted) and summarise them per harness.

    Sessions stream to --json / --output as they are read. With --commit the index advances only
    after every output is written and synced, so a failed or killed run delivers them again.
    """
    harvest(
        project=project,
        source=checked_sources(source, since),
        since=since,
        as_json=as_json,
        output=output,
        claude_home=claude_home,
        codex_home=codex_home,
        copilot_home=copilot_home,
        vscode_home=vscode_home,
        state_dir=state_dir,
        commit=commit,
        include_sidechains=include_sidechains,
    )


def checked_sources(source: list[str], since: str | None) -> list[str]:
    """The checks made before anything is read (``typer.BadParameter``: a usage error); the
    sources, comma lists split (``--source claude,codex``, as `run` takes them)."""
    unknown = unknown_source(source)
    if unknown is not None:
        raise typer.BadParameter(
            f"unknown source {unknown!r}; choose from {', '.join(SOURCE_CHOICES)}",
            param_hint="'--source' / '-s'",
        )
    checked_since(since, left_out="to read every session")
    return source_names(source)
