"""`skillopt-sleep install | uninstall | doctor`: the harness shims, from the installed package.

Thin over :mod:`skillopt_sleep.install`: parse, call, print one line per file touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._run import emit_json, handle_errors

if TYPE_CHECKING:
    from skillopt_sleep.install import Action

HARNESS = typer.Argument(..., help="claude-code | codex | copilot | all (one or more).")
INSTALLED = typer.Argument(
    None,
    help="claude-code | codex | copilot | all (one or more); none: every harness already "
    "installed, again (after the clone or its venv moved).",
    show_default=False,
)
DRY_RUN = typer.Option(False, "--dry-run", help="Say what would change; touch nothing.")
JSON = typer.Option(False, "--json", help="Print the result as JSON on stdout.")


def _print(actions: list[Action], as_json: bool, dry_run: bool) -> None:
    if as_json:
        emit_json(actions)
        return
    for action in actions:
        detail = f"  ({action.detail})" if action.detail else ""
        typer.echo(f"{_verb(action.verb, dry_run)} {action.path}{detail}")
        for line in action.preview.splitlines():
            typer.echo(f"    {line}".rstrip())


def _verb(verb: str, dry_run: bool) -> str:
    """The line's first column: ``create``, or in a dry run ``would create`` (but ``unchanged``,
    which is as true of a dry run as of a real one)."""
    if not dry_run:
        return f"{verb:<9}"
    return f"{verb if verb == 'unchanged' else 'would ' + verb:<13}"


@app.command("install")
@handle_errors
def install_command(
    harness: list[str] | None = INSTALLED,
    dry_run: bool = DRY_RUN,
    mcp: bool = typer.Option(
        True,
        "--mcp/--no-mcp",
        help="Register the MCP server too (Codex config.toml, Copilot mcp-config.json, --vscode's "
        "mcp.json). The Claude Code plugin always carries its MCP server: add --no-plugin to "
        "leave it out.",
    ),
    plugin: bool = typer.Option(
        True,
        "--plugin/--no-plugin",
        help="Claude Code: also add the marketplace and install the plugin with `claude`.",
    ),
    vscode: Path | None = typer.Option(
        None, "--vscode", help="Copilot: also write this project's .vscode/mcp.json."
    ),
    as_json: bool = JSON,
) -> None:
    """Install the harness shims: /skillopt-sleep, skills, hook and MCP server.

    Claude Code: the plugin (skill, SessionEnd hook, MCP server) and the user-level
    /skillopt-sleep; Codex: the skill and the MCP server; Copilot: the MCP server and a skill.
    Idempotent; every file is recorded with its hash. --dry-run also prints the entry each
    config would get.
    """
    from skillopt_sleep.install import failures, install

    actions = install(
        harness or [],
        dry_run=dry_run,
        mcp=mcp,
        claude_plugin=plugin,
        vscode_project=vscode.expanduser().resolve() if vscode else None,
    )
    _print(actions, as_json, dry_run)
    _fail_on(failures(actions))


def _fail_on(failed: Sequence[Action]) -> None:
    """Each failure (a harness not installed, a change not undone) as ``error:`` / ``fix:`` on
    stderr, then exit 1."""
    from skillopt_core.cli_errors import print_error

    for action in failed:
        print_error(f"{action.path}: {action.detail}", action.fix)
    if failed:
        raise typer.Exit(1)


@app.command("uninstall")
@handle_errors
def uninstall_command(
    harness: list[str] = HARNESS, dry_run: bool = DRY_RUN, as_json: bool = JSON
) -> None:
    """Remove exactly what `install` wrote (files edited since are kept and reported).

    What could not be undone (a failing `claude plugin uninstall`) stays recorded for the next
    uninstall and makes the command exit 1.
    """
    from skillopt_sleep.install import failures, uninstall

    actions = uninstall(harness, dry_run=dry_run)
    _print(actions, as_json, dry_run)
    if not actions and not as_json:  # silence would read as "done" or as a hang
        named = "any harness" if "all" in harness else ", ".join(harness)
        typer.echo(
            f"nothing to uninstall: no file is recorded as installed for {named} "
            "(`skillopt-sleep doctor` lists what is)"
        )
    _fail_on(failures(actions))


@app.command("doctor")
@handle_errors
def doctor_command(
    project: Path | None = typer.Option(
        None,
        "--project",
        "-p",
        help="Project root whose transcripts to count (default: the current directory).",
    ),
    as_json: bool = JSON,
) -> None:
    """Check the engine, the harnesses, backends, schedule and installed shims.

    Each harness: found, version, transcripts; each shim: present, unchanged, current.
    Exits 1 when any check fails (with --json too).
    """
    from skillopt_sleep.install.doctor import diagnose

    checks = diagnose(project if project is not None else Path.cwd())
    if as_json:
        emit_json(checks)
    else:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "info": "    "}
        for check in checks:
            typer.echo(f"[{marks[check.level]}] {check.name}: {check.detail}")
            if check.hint:
                typer.echo(f"       fix: {check.hint}")
    if any(c.level == "fail" for c in checks):  # the same exit, whatever the output format
        raise typer.Exit(1)
