"""The summary `skillopt-sleep harvest` prints: a table of each harness's counts, then why lines,
files or sessions were skipped, then why nothing was found when ``-p`` names no folder.

Rich draws it; where Rich would print nothing but plain characters (a pipe, a log, a file: see
:mod:`skillopt_sleep.cli._plain_text`) the same characters are written without importing Rich.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillopt_sleep.cli._options import escape, terminal

if TYPE_CHECKING:
    from rich.console import Console

    from skillopt_sleep.harvest import HarvestStats

TITLE = "Harvest summary"
HEADERS: tuple[str, ...] = (
    "harness",
    "files read",
    "sessions",
    "turns",
    "tool calls",
    "tool errors",
    "corrections",
    "skipped lines",
    "skipped files",
)


def summary(
    stats_by_harness: Mapping[str, HarvestStats],
    root: Path,
    *,
    stderr: bool,
    notes: Sequence[str] = (),
) -> None:
    """Print the summary on stdout (on stderr when stdout carries ``--json``); ``notes`` (a
    harness home that is no folder) follow the reasons things were skipped."""
    from skillopt_sleep.cli._plain_text import plain_width
    from skillopt_sleep.cli._render import missing_project_note

    rows = [
        (
            stats.harness,
            f"{stats.files_read}/{stats.files_seen}",
            *(str(n) for n in (stats.sessions, stats.turns, stats.tool_calls, stats.tool_errors)),
            str(stats.corrections),
            str(stats.skipped_line_count),
            str(sum(stats.skipped_files.values())),
        )
        for stats in stats_by_harness.values()
    ]
    details = [
        f"  {stats.harness} {label}: {', '.join(f'{r}: {n}' for r, n in reasons.items())}"
        for stats in stats_by_harness.values()
        for label, reasons in (
            ("skipped lines", stats.skipped_lines),
            ("skipped files", stats.skipped_files),
            ("sessions not kept", stats.skipped_sessions),
        )
        if reasons
    ]
    details += notes
    note = missing_project_note(root, sum(s.sessions for s in stats_by_harness.values()))
    stream = sys.stderr if stderr else sys.stdout
    width = plain_width(stream)
    plain = None if width is None else _plain(rows, details, note, width)
    if plain is None:
        _rich(terminal(stderr=stderr), rows, details, note)
        return
    for text in plain:  # a write and a flush per print, as Rich does
        stream.write(text)
        stream.flush()


def _widths(rows: Sequence[Sequence[str]]) -> list[int]:
    """No column rules, and each column at least as wide as its longest word or cell, so at 80
    columns (a pipe, a log) headers wrap between words and no name or number is cut ("copil…")."""
    return [
        max([len(w) for w in header.split()] + [len(row[at]) for row in rows])
        for at, header in enumerate(HEADERS)
    ]


def _row_line(row: Sequence[str]) -> str:
    """A harness's counts on one line, for a console too narrow for the table."""
    cells = ", ".join(f"{header} {cell}" for header, cell in zip(HEADERS[1:], row[1:], strict=True))
    return f"{row[0]}: {cells}"


def _rich(console: Console, rows: Sequence[Sequence[str]], details: list[str], note: str) -> None:
    from rich import box
    from rich.table import Table

    from skillopt_sleep.cli._render import fits

    table = Table(title=TITLE, box=box.SIMPLE_HEAD, padding=0)
    for at, (header, widest) in enumerate(zip(HEADERS, _widths(rows), strict=True)):
        table.add_column(
            header, justify="right" if at else "left", min_width=widest, max_width=widest
        )
    for row in rows:
        table.add_row(*row)
    if fits(console, table):
        console.print(table)
    else:  # a narrow terminal would crop the columns that do not fit: one line per harness
        for row in rows:
            console.print(escape(_row_line(row)))
    for line in details:
        console.print(escape(line))
    if note:
        console.print(escape(note), soft_wrap=True)


def _plain(
    rows: Sequence[Sequence[str]], details: list[str], note: str, width: int
) -> list[str] | None:
    """What :func:`_rich` prints at ``width``, print by print; None when some text is not plain."""
    from skillopt_sleep.cli._plain_text import is_plain, printed, simple_head_table

    texts = [*HEADERS, *(cell for row in rows for cell in row), *details, note]
    if not all(is_plain(text) for text in texts):
        return None
    widths = _widths(rows)
    out: list[str] = []
    if sum(widths) + len(widths) + 1 <= width:  # as Rich measures the table (``fits``)
        table = simple_head_table(TITLE, HEADERS, rows, widths)
        if table is None:
            return None
        out.append(table)
    else:
        out.extend(printed(_row_line(row), width) for row in rows)
    out.extend(printed(line, width) for line in details)
    if note:
        out.append(f"{note}\n")  # soft-wrapped: as it is
    return out
