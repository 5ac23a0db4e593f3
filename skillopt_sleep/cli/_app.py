"""The typer application shared by every `skillopt-sleep` command module."""

from __future__ import annotations

import inspect

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


def unwrap_help(group: typer.Typer) -> None:
    """Give every command of ``group`` (and of its sub-groups) its docstring with each
    paragraph on one line. Typer's rich help keeps the source's line breaks in every paragraph
    but the first, so a docstring wrapped at 100 columns printed ragged at any other width.
    Lines that open a list item (``-``, ``*``) or are indented keep their breaks."""
    for info in group.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        info.help = "\n\n".join(_one_line(paragraph) for paragraph in text.split("\n\n"))
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            unwrap_help(sub.typer_instance)


def _one_line(paragraph: str) -> str:
    lines = paragraph.split("\n")
    if any(line.startswith(("-", "*", " ")) for line in lines):
        return paragraph
    return " ".join(line.strip() for line in lines)
