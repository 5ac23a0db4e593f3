"""`skillopt-sleep run`, `dry-run`, `status`, `proposals`, `report`, `adopt`, `reject`, `rollback`.

Thin over :mod:`skillopt_sleep.engine`: parse flags, call the library, render the record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from skillopt_core.interrupts import sigterm_interrupts
from skillopt_sleep._display import displayable
from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import PROJECT, escape, night_project, project_dir, terminal
from skillopt_sleep.cli._profile import with_profile
from skillopt_sleep.cli._run import emit_json, fail, handle_errors, load, progress_bar

JSON = typer.Option(False, "--json", help="Print the result as JSON on stdout.")
PROPOSAL = typer.Argument(None, help="Proposal id (a night id; default: the latest that applies).")


def _run(project: Path | None, dry_run: bool, as_json: bool, flags: dict[str, Any]) -> None:
    from skillopt_sleep.engine import run_night

    root = night_project(project)
    config = load(root, flags)
    with sigterm_interrupts(), progress_bar(not as_json) as progress:
        report = run_night(root, config, dry_run=dry_run, progress=progress)
    if as_json:
        emit_json(report)
        return
    from skillopt_sleep.cli._render import night_summary

    night_summary(report)


@app.command("run")
@handle_errors
@with_profile()
def run_command(project: Path | None = PROJECT, as_json: bool = JSON, **profile: Any) -> None:
    """Run one night: harvest -> mine -> replay -> gated edits -> stage a proposal to adopt."""
    _run(project, False, as_json, profile)


@app.command("dry-run")
@handle_errors
@with_profile(exclude=("auto_adopt",))
def dry_run_command(project: Path | None = PROJECT, as_json: bool = JSON, **profile: Any) -> None:
    """Everything a night does except staging: nothing is proposed, no state advances."""
    _run(project, True, as_json, profile)


@app.command("status")
@handle_errors
def status_command(
    project: Path | None = PROJECT,
    as_json: bool = JSON,
    check: bool = typer.Option(
        False, "--check-backends", help="Also health-check each configured backend (slower)."
    ),
) -> None:
    """The last nights, pending proposals, the schedule, backends and the archive (fast)."""
    from skillopt_sleep.engine import status

    result = status(project_dir(project), check_backends=check)
    for notice in (*result.interrupted, *result.warnings):
        typer.echo(f"warning: {displayable(notice)}", err=True)
    if as_json:
        emit_json(result)
        return
    from skillopt_sleep.cli._render import status_table

    status_table(result)


@app.command("proposals")
@handle_errors
def proposals_command(project: Path | None = PROJECT, as_json: bool = JSON) -> None:
    """Every staged proposal and its state (pending, adopted, rejected, rolled back)."""
    from skillopt_sleep.engine import list_proposals

    found = list_proposals(project_dir(project))
    if as_json:
        emit_json(found)
        return
    from skillopt_sleep.cli._render import proposals_table

    proposals_table(found)


REPORT_FORMATS = ("md", "html", "json")


@app.command("report")
@handle_errors
def report_command(
    proposal: str | None = PROPOSAL,
    project: Path | None = PROJECT,
    kind: str | None = typer.Option(
        None,
        "--format",
        help="md | html | json: which report to show (default: md; json with --json).",
        show_default=False,
    ),
    path_only: bool = typer.Option(False, "--path", help="Print the report's path only."),
    as_json: bool = typer.Option(
        False,
        "--json",
        help='Print JSON on stdout: report.json, or with --path {"path": ...}.',
    ),
) -> None:
    """Show a staged proposal's report (markdown on the terminal; --format html for a browser).

    Without an id it is the latest proposal's; its first line says which proposal that is, its
    state now, and what the latest night did if that night staged nothing."""
    from skillopt_core.errors import UsageError
    from skillopt_sleep.engine import read_report, report_path

    if kind is not None and kind not in REPORT_FORMATS:
        raise typer.BadParameter(
            f"{kind!r} is not a report format; choose from {', '.join(REPORT_FORMATS)}",
            param_hint="'--format'",
        )
    if as_json and kind not in (None, "json") and not path_only:
        raise UsageError(
            f"--json prints report.json, so it cannot show the {kind} report",
            hint=f"drop --json to see that one, or add --path for its path as JSON "
            f"(`skillopt-sleep report --format {kind} --path --json`)",
        )
    kind = kind or ("json" if as_json else "md")
    if path_only:
        path = str(report_path(project_dir(project), proposal, kind))
        if as_json:
            emit_json({"path": path, "format": kind})
        else:
            typer.echo(path)
        return
    shown = read_report(project_dir(project), proposal, kind)
    if kind != "md":
        typer.echo(shown.text)
        return
    # the note as written (escaped for Rich, not for Markdown as the text an agent reads has it)
    from skillopt_sleep.engine.report_view import report_body

    terminal().print(escape(shown.note), soft_wrap=True, highlight=False, emoji=False)
    body = report_body(shown)
    if body:
        typer.echo(f"\n{body}")


def _adoption(action: str, result: Any, as_json: bool) -> None:
    if as_json:
        emit_json(result)
        return
    typer.echo(f"{action} {result.proposal}: " + ", ".join(result.files))
    if result.backup_dir:
        typer.echo(f"backup: {result.backup_dir}")
    if result.message:
        typer.echo(result.message)


@app.command("adopt")
@handle_errors
def adopt_command(
    proposal: str | None = PROPOSAL,
    project: Path | None = PROJECT,
    force: bool = typer.Option(
        False,
        "--force",
        help="Adopt even if a live file changed since staging: shows what changed live and what "
        "the proposal changes, then writes the proposal over it (your later edits go; "
        "rollback brings them back).",
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="With --force: do not ask."),
    as_json: bool = JSON,
) -> None:
    """Replace the live files with the proposal (atomic, backed up, journaled)."""
    from skillopt_sleep.engine import adopt, three_way_diff

    root = project_dir(project)
    if force:
        typer.echo(three_way_diff(root, proposal), err=as_json)
        if not yes and not _confirmed("Adopt over these live changes?"):
            typer.echo("not adopted: the live files are unchanged", err=True)
            raise typer.Exit(1)
    _adoption("adopted", adopt(root, proposal, force=force), as_json)


def _confirmed(question: str) -> bool:
    """The user's answer on stderr; no answer at all (stdin closed, as under cron or in a pipe)
    is a failure with its fix, not click's bare "Aborted."."""
    try:
        return typer.confirm(question, err=True)
    except typer.Abort:
        typer.echo("", err=True)
        raise fail(
            "not adopted: --force asks before writing over live changes, and nothing answered",
            1,
            "look at the changes above, then add --yes to adopt over them without asking",
        ) from None


@app.command("reject")
@handle_errors
def reject_command(
    proposal: str | None = PROPOSAL, project: Path | None = PROJECT, as_json: bool = JSON
) -> None:
    """Decline a proposal; its edits join the rejected buffer and are not proposed again."""
    from skillopt_sleep.engine import reject

    _adoption("rejected", reject(project_dir(project), proposal), as_json)


@app.command("rollback")
@handle_errors
def rollback_command(
    proposal: str | None = PROPOSAL,
    project: Path | None = PROJECT,
    force: bool = typer.Option(
        False,
        "--force",
        help="Roll back even over live files changed since the adopt (edited by hand, or "
        "adopted over); their text is kept beside the backups first.",
    ),
    as_json: bool = JSON,
) -> None:
    """Restore the files an adopted proposal replaced, byte for byte.

    A file changed since the adopt wrote it is refused (exit 6) unless --force."""
    from skillopt_sleep.engine import rollback

    _adoption("rolled back", rollback(project_dir(project), proposal, force=force), as_json)
