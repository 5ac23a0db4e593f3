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
        "`rollback` undoes an adopt; `schedule` runs it every night.\n\n"
        "Examples:\n"
        "  $ skillopt-sleep dry-run\n"
        "  $ skillopt-sleep run --backend claude-cli --max-calls 200\n"
        "  $ skillopt-sleep status --json\n\n"
        "Files: settings in config.toml (`skillopt-sleep config show` names both files: the "
        "user's and <project>/.skillopt-sleep/); each project's nights, proposals and backups "
        "in its state folder, which `skillopt-sleep status` prints (SKILLOPT_SLEEP_HOME moves "
        "them).\n\n"
        "--json: on stdout, a JSON array where a command lists things (proposals, refused, doctor, "
        "harvest, mine, install, uninstall), one object a line from daemon, else one JSON "
        "object; warnings and errors go to stderr, never into the JSON.\n\n" + EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # -h as most CLIs take it
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


def unwrap_help(group: typer.Typer, prefix: str = "") -> None:
    """Give every command of ``group`` (and of its sub-groups) its docstring with each
    paragraph on one line, then its examples and the files it touches
    (:mod:`skillopt_sleep.cli._examples`). Typer's rich help keeps the source's line breaks in
    every paragraph but the first, so a docstring wrapped at 100 columns printed ragged at any
    other width. Lines that open a list item (``-``, ``*``) or are indented keep their breaks.
    Idempotent: the application is assembled again on each use."""
    for info in group.registered_commands:
        text = info.help or inspect.getdoc(info.callback) or ""
        name = info.name or (info.callback.__name__ if info.callback else "")
        info.help = _with_extras(_unwrapped(text), f"{prefix}{name}")
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            path = f"{prefix}{sub.name or sub.typer_instance.info.name}"
            meta = sub.typer_instance.info
            if isinstance(meta.help, str):
                meta.help = _with_extras(_unwrapped(meta.help), path)
            unwrap_help(sub.typer_instance, f"{path} ")


def _unwrapped(text: str) -> str:
    return "\n\n".join(_one_line(paragraph) for paragraph in text.split("\n\n"))


def _with_extras(text: str, path: str) -> str:
    from skillopt_sleep.cli._examples import help_extras

    extras = help_extras(path)
    if not extras or extras in text:
        return text
    return f"{text}\n\n{extras}"


def _one_line(paragraph: str) -> str:
    lines = paragraph.split("\n")
    if any(line.startswith(("-", "*", " ")) for line in lines):
        return paragraph
    return " ".join(line.strip() for line in lines)
