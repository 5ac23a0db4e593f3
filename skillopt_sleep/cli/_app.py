"""The typer application shared by every `skillopt-sleep` command module."""

from __future__ import annotations

import typer

from skillopt_core.errors import EXIT_CODES_HELP
from skillopt_sleep import __version__

app = typer.Typer(
    name="skillopt-sleep",
    help=(
        "Nightly skill optimization for coding agents.\n\n"
        "harvest transcripts -> mine recurring tasks -> replay offline -> gated skill edits -> "
        "stage a proposal you adopt.\n\n"
        "Start with `skillopt-sleep dry-run`, then `run`, `report`, `adopt` (or `reject`); "
        "`rollback` undoes an adopt; `schedule` runs it every night.\n\n" + EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"skillopt-sleep {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Nightly skill optimization for coding agents."""
