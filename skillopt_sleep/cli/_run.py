"""Plumbing every `skillopt-sleep` command shares: error mapping, JSON output, progress, config.

One place maps a :class:`~skillopt_core.errors.SkillOptError` to ``error: ...`` on stderr and its
exit code, so every command fails the same way. Progress bars draw on stderr only when it is a
terminal, so piped output and ``--json`` stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int, hint: str = "") -> typer.Exit:
    """Print ``error: message`` (and the fix) and return the exit to raise."""
    from skillopt_core.cli_errors import print_error

    print_error(message, hint)
    return typer.Exit(code)


def handle_errors(command: F) -> F:
    """Map the engine's errors to their exit codes, once for every command (the same mapping
    as the ``skillopt`` CLI: :func:`skillopt_core.cli_errors.reports_errors`)."""
    from skillopt_core.cli_errors import reports_errors

    return reports_errors(command)


def emit_json(value: Any) -> None:
    from skillopt_sleep.jsonable import dumps

    typer.echo(dumps(value, indent=2))


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A ``(stage, done, total)`` callback drawing a rich progress bar on a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=max(total, 1))
            bar.update(tasks[stage], completed=done, total=max(total, 1))

        yield update


def load(project: Path, flag_values: Mapping[str, Any]) -> Any:
    """The merged configuration of ``project`` with the given profile flags on top."""
    from skillopt_sleep.cli._profile import overrides
    from skillopt_sleep.engine import load_config

    return load_config(project, overrides(**dict(flag_values)))
