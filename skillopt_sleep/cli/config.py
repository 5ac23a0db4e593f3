"""`skillopt-sleep config show`: the merged configuration and where each value came from."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import PROJECT, project_dir
from skillopt_sleep.cli._run import emit_json, handle_errors


def toml_literal(value: Any) -> str:
    """``value`` as a config file spells it (``true``, ``"mock"``, ``["claude"]``), so what the
    table shows can be copied into a config file, never Python's ``True`` or ``'mock'``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{json.dumps(str(k))} = {toml_literal(v)}" for k, v in value.items())
        return "{" + (f" {pairs} " if pairs else "") + "}"
    return repr(value)


config_app = typer.Typer(
    help="Inspect the configuration (user < project < environment < flags).", no_args_is_help=True
)
app.add_typer(config_app, name="config")


@config_app.command("show")
@handle_errors
def show_command(
    project: Path | None = PROJECT,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON on stdout."),
) -> None:
    """Every setting, its value and its source (default, a file, env SKILLOPT_SLEEP_*, flag)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from skillopt_sleep.engine.config import load_config, project_config_path, user_config_path

    root = project_dir(project)  # a misspelt -p would show the defaults as its settings
    config = load_config(root)
    values = config.flat()
    files = {"user": user_config_path(), "project": project_config_path(root)}
    if as_json:
        emit_json(
            {
                "files": {name: str(path) for name, path in files.items()},
                "found": {name: path.is_file() for name, path in files.items()},
                "settings": {
                    k: {"value": v, "source": config.sources[k]} for k, v in values.items()
                },
            }
        )
        return
    rows = [(key, toml_literal(value), config.sources[key]) for key, value in values.items()]
    console = Console(highlight=False)
    # each column's widest cell, 4 rules and 6 spaces of padding: else keys fold mid-word
    natural = sum(max(len(row[at]) for row in rows) for at in range(3)) + 10
    if natural > console.width:  # a narrow terminal: one TOML-like line a setting, whole
        console.print("[bold]skillopt-sleep configuration[/bold]")
        for key, literal, source in rows:
            console.print(escape(f"{key} = {literal}  # {source}"), soft_wrap=True)
    else:
        table = Table(title="skillopt-sleep configuration")
        for column in ("key", "value", "source"):
            table.add_column(column, overflow="fold")
        for key, literal, source in rows:
            table.add_row(key, escape(literal), escape(source))
        console.print(table)
    for name, path in files.items():
        console.print(f"{name} file: {escape(str(path))}", soft_wrap=True)  # whole, to copy
        if not path.is_file():
            # a SKILLOPT_SLEEP_CONFIG naming a missing file is skipped like an absent user
            # file: the listing must not read as if it were in use
            console.print("  (no such file: not read)")
