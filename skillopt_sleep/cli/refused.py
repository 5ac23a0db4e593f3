"""`skillopt-sleep refused`: the edits no night may propose again, and `refused forget`.

Thin over :func:`skillopt_sleep.engine.api.refused` and ``forget_refused``: parse flags, call
the library, render the records (every edit's text escaped: it is the model's).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from skillopt_sleep.cli._app import app
from skillopt_sleep.cli._options import PROJECT, escape, project_dir
from skillopt_sleep.cli._run import emit_json, handle_errors

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from skillopt_sleep.stage.refused import RefusedEdit

JSON = typer.Option(False, "--json", help="Print the result as JSON on stdout.")
BY = typer.Option(
    None,
    "--by",
    help="Only the refusals of: you (reject, rollback) or gate (the night's own gate).",
    show_default=False,
)

refused_app = typer.Typer(
    help="The edits no night may propose again, yours and the gate's; `forget` lifts a "
    "refusal.\n\n"
    "Yours are the edits of each proposal you rejected or rolled back, kept for good; the "
    "gate's, the edits a night's validation refused, the newest kept. A night never proposes "
    "an edit its skill file's list blocks, so a project whose every idea was once refused "
    "stops learning: `refused forget ID` lifts one refusal (a later night may propose that "
    "edit again), `refused forget --all` every one.\n\n"
    "An edit's id hashes its skill file and its text: it stays the same from run to run. A "
    "gate's refusal that only warns (the edit was rejected once, beside others) does not "
    "block the edit.",
    no_args_is_help=False,
)
app.add_typer(refused_app, name="refused")


@refused_app.callback(invoke_without_command=True)
@handle_errors
def refused_command(
    ctx: typer.Context,
    project: Path | None = PROJECT,
    by: str | None = BY,
    as_json: bool = JSON,
) -> None:
    """List the refused edits, by skill file (the newest refusal last)."""
    if ctx.invoked_subcommand is not None:  # `refused -p P forget ...`: forget takes them
        ctx.obj = {"project": project, "json": as_json, "by": by}
        return
    from skillopt_sleep.engine.api import refused

    edits = refused(project_dir(project), by=by)  # type: ignore[arg-type]  # checked there
    if as_json:
        emit_json(list(edits))
        return
    refused_table(edits, by)


@refused_app.command("forget")
@handle_errors
def forget_command(
    ctx: typer.Context,
    ids: list[str] | None = typer.Argument(
        None, help="Ids of the refused edits to forget (`skillopt-sleep refused` lists them)."
    ),
    forget_all: bool = typer.Option(False, "--all", help="Forget every refused edit."),
    by: str | None = typer.Option(
        None,
        "--by",
        help="With --all: forget only yours (you) or only the gate's (gate).",
        show_default=False,
    ),
    project: Path | None = PROJECT,
    as_json: bool = JSON,
) -> None:
    """Forget refused edits: a later night may propose them again (and the gate weighs them
    again). The proposals that held them keep their state.

    All or nothing: an id that no refused edit has is a usage error (exit 2) and nothing is
    forgotten. It waits for no night: while one runs (or an adopt, a rollback) it is refused
    as busy (exit 5); run it again when that has finished."""
    from skillopt_sleep.engine.api import forget_refused

    given = ctx.obj if isinstance(ctx.obj, dict) else {}
    project = project if project is not None else given.get("project")
    as_json = as_json or bool(given.get("json"))
    by = by if by is not None else given.get("by")  # `refused --by gate forget --all`
    result = forget_refused(project_dir(project), ids or (), all_=forget_all, by=by)  # type: ignore[arg-type]
    if as_json:
        emit_json(result)
        return
    console = _console()
    if result.message:
        console.print(escape(result.message), soft_wrap=True)
    if not result.forgotten:
        whose = {"you": " of yours", "gate": " of the gate's"}.get(str(by), "")
        console.print(f"nothing to forget: no edit{whose} is refused")
        return
    count = len(result.forgotten)
    console.print(
        f"forgot {count} refused edit{'' if count == 1 else 's'}; a later night may propose "
        f"{'it' if count == 1 else 'them'} again:"
    )
    for edit in result.forgotten:
        console.print(f"  {edit.id}  {escape(edit.by)}  {_text(edit)}", soft_wrap=True)


def _text(edit: RefusedEdit) -> str:
    """The edit as one escaped line: what it adds, deletes, or replaces with what."""
    if edit.op == "replace":
        return f"{escape(_line(edit.anchor))} -> {escape(_line(edit.content))}"
    if edit.op == "delete":
        return escape(_line(edit.anchor))
    after = f"  (after {escape(_line(edit.anchor))})" if edit.anchor else ""
    return escape(_line(edit.content)) + after


def _line(text: str) -> str:
    return " ".join(text.split())


def _delta(edit: RefusedEdit) -> str:
    return f"{edit.delta:+.2f}" if edit.delta is not None else "-"


def _delta_note(edit: RefusedEdit) -> str:
    return f" (delta {edit.delta:+.2f})" if edit.delta is not None else ""


def _by(edit: RefusedEdit) -> str:
    return escape(edit.by) + ("" if edit.blocks else " (warns only)")


def refused_table(edits: Sequence[RefusedEdit], by: str | None = None) -> None:
    """A table a skill file (its path whole above it, to copy): id, who refused, op, the gate's
    delta, the edit; on a terminal too narrow for it, one line an edit."""
    from skillopt_sleep.cli._render import fits

    console = _console()
    if not edits and by is not None:
        whose = "yours" if by == "you" else "the gate's"
        console.print(f"no refused edits of {whose} (`--by` left out lists all of them)")
        return
    if not edits:
        console.print(
            "no refused edits: nothing keeps a night from proposing an edit (`skillopt-sleep "
            "reject` or `rollback` refuses a proposal's edits)",
            soft_wrap=True,
        )
        return
    skills: dict[str, list[RefusedEdit]] = {}
    for edit in edits:
        skills.setdefault(edit.skill, []).append(edit)
    for skill, mine in skills.items():
        console.print(f"[bold]{escape(skill)}[/bold]", soft_wrap=True)
        table = _table(mine)
        if fits(console, table):
            console.print(table)
            continue
        for edit in mine:
            console.print(
                f"  {edit.id}  {_by(edit)}  {edit.op}{_delta_note(edit)}: {_text(edit)}",
                soft_wrap=True,
            )
    yours = sum(e.by_user for e in edits)
    console.print(
        f"{len(edits)} refused ({yours} by you, {len(edits) - yours} by the gate). Forget one "
        "and a later night may propose it again: skillopt-sleep refused forget ID",
        soft_wrap=True,
    )


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, emoji=False)


def _table(edits: Sequence[RefusedEdit]) -> Table:
    from rich.table import Table

    table = Table()
    table.add_column("id", no_wrap=True, min_width=10)
    table.add_column("by", no_wrap=True)
    table.add_column("op", no_wrap=True)
    table.add_column("delta", no_wrap=True, justify="right")
    table.add_column("edit", min_width=20, overflow="fold")
    for edit in edits:
        table.add_row(edit.id, _by(edit), edit.op, _delta(edit), _text(edit))
    return table
