"""The typer application shared by every `skillopt-sleep` command module."""

from __future__ import annotations

import typer

from skillopt_sleep import __version__

app = typer.Typer(
    name="skillopt-sleep",
    help=(
        "Nightly skill optimization for coding agents.\n\n"
        "harvest transcripts -> mine recurring tasks -> replay offline -> gated skill edits -> "
        "stage a proposal you adopt.\n\n"
        "Exit codes: 0 ok, 1 error, 2 usage error, 3 handoff pending, 4 budget exhausted."
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
