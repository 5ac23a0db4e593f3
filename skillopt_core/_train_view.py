"""Terminal rendering for `skillopt train`: a live step bar and the closing summary."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from skillopt_core.optim.trainer import StepCallback
from skillopt_core.training import TrainingSummary


@contextmanager
def step_progress(enabled: bool = True) -> Iterator[StepCallback]:
    """Yield an ``on_step`` callback that advances a progress line (silent when disabled)."""
    if not enabled:
        yield lambda record: None
        return
    console = Console(stderr=True, emoji=False)
    with Progress(
        TextColumn("[bold]training"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}", markup=False),  # gate reasons quote item ids
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("train", total=None, status="")

        def on_step(record: dict[str, Any]) -> None:
            verdict = "accepted" if record.get("accepted") else record.get("decision", "")
            progress.update(
                task,
                completed=record["step"] + 1,
                status=escape(f"step {record['step']}: {str(verdict)[:60]}"),
            )

        yield on_step


def _fmt(value: float | None) -> str:
    return "n/a (budget spent)" if value is None else f"{value:.3f}"


def _edit_text(edit: dict[str, Any], width: int) -> str:
    return escape(f"{edit['op']} {(edit['content'] or edit['anchor']).strip()[:width]}")


def render_summary(summary: TrainingSummary) -> None:
    """Print the run's scores, edits and spend. Everything the user or the model wrote (paths,
    edit text, reasons) is escaped, so brackets in it print as they are."""
    console = Console(highlight=False, emoji=False)
    table = Table(
        title=escape(
            f"SkillOpt run {summary.run_dir}  "
            f"(optimizer {summary.optimizer}, target {summary.target})"
        )
    )
    for column in ("split", "baseline hard", "final hard", "baseline soft", "final soft"):
        table.add_column(column)
    for split in ("val", "test"):
        b, f = summary.baseline[split], summary.final[split]
        table.add_row(
            split,
            _fmt(None if b is None else b.hard),
            _fmt(None if f is None else f.hard),
            _fmt(None if b is None else b.soft),
            _fmt(None if f is None else f.soft),
        )
    console.print(table)
    console.print(f"[green]accepted edits ({len(summary.accepted)}):")
    for edit in summary.accepted:
        console.print(f"  + step {edit['step']}: {_edit_text(edit, 90)}")
    console.print(f"[red]rejected edits ({len(summary.rejected)}):")
    for entry in summary.rejected[:15]:
        console.print(
            f"  - step {entry['step']}: {_edit_text(entry['edit'], 80)} "
            f"(delta {entry['delta']:+.3f})"
        )
    for warning in summary.warnings:
        console.print(f"[yellow]warning: {escape(warning)}")
    if summary.stopped_reason:
        console.print(f"[yellow]stopped early: {escape(summary.stopped_reason)}")
    usage = summary.usage
    console.print(
        f"model calls: {usage.get('calls', 0)}, tokens in/out: {usage.get('input_tokens', 0)}/"
        f"{usage.get('output_tokens', 0)}, est. cost ${usage.get('cost_usd', 0.0):.4f}"
    )
    console.print(f"best skill: {escape(str(summary.best_skill_path))}")
