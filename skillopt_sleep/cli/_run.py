"""Plumbing every `skillopt-sleep` command shares: error mapping, JSON output, progress, config.

One place maps a :class:`~skillopt_core.errors.SkillOptError` to ``error: ...`` on stderr and its
exit code, so every command fails the same way. Progress bars draw on stderr only when it is a
terminal, so piped output and ``--json`` stay clean. typer is imported only to end a command
with an error or to print: a plain `skillopt-sleep harvest` runs without it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import typer

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int, hint: str = "") -> typer.Exit:
    """Print ``error: message`` (and the fix) and return the exit to raise."""
    import typer

    from skillopt_core.cli_errors import print_error

    print_error(message, hint)
    return typer.Exit(code)


INTERRUPTED_HINT = (
    "nothing it had not finished was kept (a night's sessions stay for the next one); "
    "run the same command again"
)


def handle_errors(command: F) -> F:
    """Map the engine's errors to their exit codes, once for every command (the same mapping
    as the ``skillopt`` CLI: :func:`skillopt_core.cli_errors.reports_errors`), and Ctrl-C to
    ``error: interrupted`` and exit 130 with this CLI's own fix (typer alone exits 130 silently,
    and the shared mapping's fix names `skillopt train`)."""
    from skillopt_core.cli_errors import reports_errors

    return reports_errors(interrupts_exit(command))


def interrupts_exit(command: F) -> F:
    """Decorate ``command`` so that Ctrl-C ends it with a one-line message and exit 130
    (SIGTERM, a :class:`~skillopt_core.interrupts.Terminated`, is left to the shared mapping)."""
    import functools

    from skillopt_core.interrupts import Terminated

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except Terminated:
            raise
        except KeyboardInterrupt:
            raise fail("interrupted", 130, INTERRUPTED_HINT) from None

    return wrapper  # type: ignore[return-value]


def emit_json(value: Any) -> None:
    import typer

    from skillopt_sleep._display import displayable_json
    from skillopt_sleep.jsonable import dumps

    typer.echo(displayable_json(dumps(value, indent=2)))


REFRESH_S = 0.1  # the fastest a progress bar redraws


@contextmanager
def threadless_bar(console: Any, *columns: Any) -> Iterator[Callable[[str, int, int], None]]:
    """A transient Rich bar with a task per label, fed ``(label, done, total)``.

    Redrawn from its own updates (at most every ``REFRESH_S``) rather than by Rich's refresh
    thread: harvest and mining fork their workers only from a single-threaded process.
    """
    import time

    from rich.progress import Progress

    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bar:
        tasks: dict[str, Any] = {}
        drawn = [0.0]

        def update(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)
            now = time.monotonic()
            if now - drawn[0] >= REFRESH_S or done == total:
                drawn[0] = now
                bar.refresh()

        yield update


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A ``(stage, done, total)`` callback drawing a rich progress bar on a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description:<10}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with threadless_bar(Console(stderr=True, emoji=False), *columns) as update:
        yield lambda stage, done, total: update(stage, done, max(total, 1))


def load(project: Path, flag_values: Mapping[str, Any]) -> Any:
    """The merged configuration of ``project`` with the given profile flags on top."""
    from skillopt_sleep.cli._profile import overrides
    from skillopt_sleep.engine import load_config

    config = load_config(project, overrides(**dict(flag_values)))
    warn_refused(config)
    return config


def warn_refused(config: Any) -> None:
    """Say on stderr which values of an untrusted project config a command left out, and how to
    trust the file (a night in a cloned repository then does not surprise its user)."""
    refused = getattr(config, "refused", {})
    if not refused:
        return
    import typer

    from skillopt_sleep._display import displayable

    names = displayable(", ".join(sorted(refused)))  # a key is the file's text: ESC sets a title
    typer.echo(
        f"warning: not used from the project's config (not trusted): {names}; see "
        "`skillopt-sleep config show`, and `skillopt-sleep config trust` if you wrote the file",
        err=True,
    )
