"""Terminal rendering of engine records (rich, imported when something is rendered; every user-
or model-written text escaped)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt_sleep.cli._options import escape

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def missing_project_note(root: Path, sessions: int) -> str:
    """Why ``harvest``/``mine`` found nothing when ``-p`` names no folder, or "".

    Both accept a project folder that is gone (its sessions are still in the harnesses' logs), so
    a misspelt ``-p`` is not an error there; but an empty table alone would not say why."""
    if sessions or root.is_dir():
        return ""
    from skillopt_sleep._display import displayable

    return displayable(
        f"note: {root} is not a directory and no session was recorded in it; "
        "check -p/--project (the project's folder, as the harnesses saw it)"
    )


def fits(console: Console, table: Table) -> bool:
    """Whether ``table`` prints whole in the console's width (else Rich crops its columns)."""
    from rich.measure import Measurement

    unbounded = console.options.update(max_width=10_000)  # else measured within the width
    return Measurement.get(console, unbounded, table).minimum <= console.width


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, emoji=False)


def night_summary(report: Any) -> None:
    console = _console()
    console.print(
        f"[bold]night {report.night_id}[/bold]: {escape(report.outcome)} — {escape(report.message)}"
    )
    console.print(
        f"{report.sessions} sessions, {report.requests} requests, {report.tasks} tasks, "
        f"{len(report.families)} families; {report.usage.calls} calls, "
        f"{report.usage.input_tokens + report.usage.output_tokens} tokens, ${report.usage.cost_usd:.4f}"
    )
    for change in report.changes:
        console.print(
            f"  {escape(change.path)}: validation {change.val_before:.2f} -> {change.val_after:.2f} "
            f"on {change.val_tasks} {change.gate_split} tasks, {change.accepted_edits} edit(s)",
            soft_wrap=True,
        )
    if report.held_out is not None:
        h = report.held_out
        console.print(
            f"  held-out: {h.before:.2f} -> {h.after:.2f} (n={h.n}, 95% CI {h.ci_low:+.2f}..{h.ci_high:+.2f}): {h.verdict}"
        )
    for edit in report.edits:
        mark = "[green]accepted[/green]" if edit.accepted else "[red]rejected[/red]"
        console.print(
            f"  {mark} {escape(edit.op)} {escape((edit.content or edit.anchor)[:100])} (Δ {edit.delta:+.2f})"
        )
    if report.proposal:
        console.print(  # paths and commands whole, to copy (and grep in night.log)
            f"staged: {escape(report.proposal_dir)}\n"
            f"review: skillopt-sleep report {report.proposal}    adopt: skillopt-sleep adopt {report.proposal}",
            soft_wrap=True,
        )


def _running_line(running: Mapping[str, str]) -> str:
    """What holds the project's lock: a night, or an adopt, a rollback or a reject."""
    return (
        f"{escape(running.get('doing', 'a night'))} is running now (pid {escape(running['pid'])})"
    )


def status_table(status: Any) -> None:
    console = _console()
    console.print(
        f"[bold]{escape(status.project)}[/bold]  (state: {escape(status.state_dir)})",
        soft_wrap=True,  # never a path cut in two, on a terminal or in a log
    )
    if status.running:
        console.print(_running_line(status.running))
    from rich.table import Table

    table = Table(title="Last nights")
    _id_column(table, "night", [night.night_id for night in status.nights])
    for column in ("outcome", "sess.", "tasks", "edits", "held-out", "cost"):  # fits 80 columns
        table.add_column(column, no_wrap=column != "outcome")
    rows = []
    for night in status.nights:
        held = (
            f"{night.held_out_before:.2f}->{night.held_out_after:.2f}"
            if night.held_out_before is not None
            else "-"
        )
        rows.append(
            (
                night.night_id,
                escape(night.outcome),
                str(night.sessions),
                str(night.tasks),
                str(night.accepted_edits),
                held,
                f"${night.cost_usd:.4f}",
            )
        )
        table.add_row(*rows[-1])
    if not status.nights:
        console.print("no nights yet: run `skillopt-sleep run`")
    elif fits(console, table):
        console.print(table)
    else:  # a narrow terminal would crop the columns to "…": a night a line
        console.print("[bold]Last nights[/bold]")
        for night, row in zip(status.nights, rows, strict=True):
            _, outcome, sessions, tasks, edits, held, cost = row
            console.print(
                f"  {night.night_id}: {outcome}, {sessions} sessions, {tasks} tasks, "
                f"{edits} edits, held-out {held}, {cost}"
            )
    if status.ended_since_last_night:
        console.print(
            f"{status.ended_since_last_night} session(s) ended since the last night "
            "(recorded by the Claude Code hook)"
        )
    proposals_table(status.pending, title="Pending proposals")
    schedule = status.schedule or {}
    if schedule.get("error"):  # e.g. a damaged schedule.json: an OS entry may still be firing
        line = f"[red]unknown[/red] ({escape(str(schedule['error']))})"
    elif schedule.get("note"):  # an OS entry with no record (e.g. the state dir was deleted)
        line = f"{escape(str(schedule['note']))}\n  fix: {escape(str(schedule.get('hint', '')))}"
    elif schedule.get("installed"):
        upcoming = schedule.get("next_run")  # None: the record's time is damaged (a problem)
        line = escape(str(schedule.get("time") or schedule.get("at") or "")) + (
            f" next {escape(str(upcoming))}" if upcoming else ""
        )
        if schedule.get("zone_note"):  # the shell's clock shows that run at another hour
            line += f"\n  note: {escape(str(schedule['zone_note']))}"
    else:
        line = "not scheduled (skillopt-sleep schedule)"
    for problem in schedule.get("problems") or ():  # e.g. the engine it names was moved
        line += (
            f"\n  [red]problem[/red]: {escape(problem['detail'])}\n  fix: {escape(problem['fix'])}"
        )
    console.print("schedule: " + line, soft_wrap=True)  # its fixes are commands to copy
    console.print(
        "backends: "
        + ", ".join(
            f"{k}={escape(v or '-')}"
            + (f" ({escape(status.health[k])})" if k in status.health else "")
            for k, v in status.backends.items()
        )
    )
    if status.archive:
        console.print(
            "archive: " + ", ".join(f"{k} {v}" for k, v in sorted(status.archive.items()))
        )


def proposals_table(proposals: Sequence[Any], title: str = "Proposals") -> None:
    """A proposal a line (id, state, edits, verdict), then its files, each path whole: a table
    column folded paths in two at 80 columns (a pipe, a log) and states into ``pe/nd/in/g`` at
    40, and the id and the paths are what the user copies."""
    console = _console()
    if not proposals:
        console.print(f"{title}: none")
        return
    console.print(f"[bold]{escape(title)}[/bold]")
    for p in proposals:
        edits = f"{p.accepted_edits} edit" + ("" if p.accepted_edits == 1 else "s")
        console.print(f"  {p.id}  {escape(p.state)}  {edits}  {escape(p.verdict)}".rstrip())
        for path in p.files:
            console.print(f"    {escape(path)}", soft_wrap=True)


def _id_column(table: Table, header: str, ids: Sequence[str]) -> None:
    """A column of night or proposal ids, never cut: two nights of one day differ only at the
    end (``20261127-031700``), and the id is what ``report``, ``adopt`` and ``rollback`` take."""
    table.add_column(header, no_wrap=True, min_width=max(map(len, ids), default=len(header)))
