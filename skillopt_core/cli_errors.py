"""Map the error hierarchy to the terminal, once for every command of a CLI.

A :class:`~skillopt_core.errors.SkillOptError` becomes ``error: <message>`` (and ``  fix: <hint>``)
on stderr, escaped so that brackets in user- or model-written text print as they are, and the
process exits with :func:`~skillopt_core.errors.exit_code_for`. Anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from skillopt_core.errors import SkillOptError, exit_code_for

F = TypeVar("F", bound=Callable[..., Any])


def print_error(message: str, hint: str = "") -> None:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(f"[red]error:[/red] {escape(message)}")
    if hint:
        console.print(f"  fix: {escape(hint)}")


def fail(error: SkillOptError) -> typer.Exit:
    """Print ``error`` and return the ``typer.Exit`` carrying its exit code (for ``raise``)."""
    print_error(error.message, error.hint)
    return typer.Exit(exit_code_for(error))


def reports_errors(command: F) -> F:
    """Decorate a command so that every deliberate error ends it with its message and exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except SkillOptError as exc:
            raise fail(exc) from None
        except KeyboardInterrupt as exc:
            print_error("interrupted")
            raise typer.Exit(exit_code_for(exc)) from None

    return wrapper  # type: ignore[return-value]


def tolerate_narrow_terminals() -> None:
    """Under an ASCII locale, print unencodable characters as escapes instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
