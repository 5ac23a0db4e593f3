"""`skillopt-sleep config show`: the merged configuration and where each value came from;
`config trust` / `config untrust`: whether a project's own config file may set user-only keys."""

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
    help="Inspect the configuration (user < project < environment < flags) and trust a "
    "project's own config file.",
    no_args_is_help=True,
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
                "trusted": _trusted(root, config),
                "refused": {
                    k: {"source": r.source, "reason": r.reason} for k, r in config.refused.items()
                },
            }
        )
        return
    rows = [(key, toml_literal(value), config.sources[key]) for key, value in values.items()]
    console = Console(highlight=False, emoji=False)
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
    if config.refused:
        from skillopt_sleep.engine.config import TRUST_HINT

        console.print(
            "[bold]not used[/bold] (user-only settings from a project file you have not trusted):"
        )
        for key, refusal in config.refused.items():
            console.print(escape(f"  {key}: {refusal.reason}"), soft_wrap=True)
        console.print(escape("fix: " + TRUST_HINT.format(project=root)), soft_wrap=True)


def _trusted(root: Path, config: Any) -> bool | None:
    """Whether the project's config file, as it is now, is trusted (None: there is none)."""
    from skillopt_sleep.engine.config_layers import read_toml, trusted_digests
    from skillopt_sleep.paths import project_config_path

    layer = read_toml(project_config_path(root))
    if layer is None:
        return None
    return trusted_digests().get(str(root.expanduser().resolve())) == layer.digest


@config_app.command("trust")
@handle_errors
def trust_command(
    project: Path | None = PROJECT,
    as_json: bool = typer.Option(False, "--json", help="Print as JSON on stdout."),
) -> None:
    """Let this project's config file, as it is now, set user-only keys (backend endpoints,
    keys and programs, budgets, auto_adopt, [homes], learned_skill_dir). Read it first: a
    changed file is untrusted again."""
    from rich.console import Console
    from rich.markup import escape

    from skillopt_sleep.engine.config_layers import read_toml, record_trust
    from skillopt_sleep.paths import project_config_path

    root = project_dir(project)
    path = project_config_path(root)
    layer = read_toml(path)  # a file that is no valid config is refused here, not trusted
    if layer is None:
        from skillopt_core.errors import UsageError

        raise UsageError(f"{path} does not exist: there is nothing to trust")
    record_trust(root, layer.digest)
    if as_json:
        emit_json({"project": str(root.resolve()), "file": str(path), "sha256": layer.digest})
        return
    Console(highlight=False, emoji=False).print(
        escape(f"trusted {path} (sha256 {layer.digest[:12]}); a change to it needs trust again"),
        soft_wrap=True,
    )


@config_app.command("untrust")
@handle_errors
def untrust_command(project: Path | None = PROJECT) -> None:
    """Forget the trust given to this project's config file."""
    from rich.console import Console
    from rich.markup import escape

    from skillopt_sleep.engine.config_layers import record_trust

    root = project_dir(project)
    record_trust(root, None)
    Console(highlight=False, emoji=False).print(escape(f"{root} is not trusted"), soft_wrap=True)
