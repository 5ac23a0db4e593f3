"""Map the error hierarchy to the terminal, once for every command of a CLI.

A :class:`~skillopt_core.errors.SkillOptError` becomes ``error: <message>`` (and ``  fix: <hint>``)
on stderr, escaped so that brackets in user- or model-written text print as they are, and the
process exits with :func:`~skillopt_core.errors.exit_code_for`. Anything else is a bug and keeps its
traceback.

Neither typer nor Rich is imported until an error is printed or a typer application runs: a
command that succeeds without them (a piped `skillopt-sleep harvest`) does not pay for them.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from skillopt_core.errors import EXIT_ERROR, SkillOptError, exit_code_for
from skillopt_core.interrupts import Terminated

if TYPE_CHECKING:
    import typer

F = TypeVar("F", bound=Callable[..., Any])


def print_error(message: str, hint: str = "") -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
    console.print(f"[red]error:[/red] {escape(message)}")
    if hint:
        console.print(f"  fix: {escape(hint)}")


def fail(error: SkillOptError) -> typer.Exit:
    """Print ``error`` and return the ``typer.Exit`` carrying its exit code (for ``raise``)."""
    import typer

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
        except Terminated as exc:
            import typer

            print_error(
                "stopped by SIGTERM",
                hint="nothing it had not finished was kept; run it again "
                "(a scheduled night runs again at its next time)",
            )
            raise typer.Exit(exit_code_for(exc)) from None
        except KeyboardInterrupt as exc:
            import typer

            print_error(
                "interrupted",
                hint="nothing it had not finished was kept; run the same command again "
                "(`skillopt train` resumes where it stopped)",
            )
            raise typer.Exit(exit_code_for(exc)) from None

    return wrapper  # type: ignore[return-value]


def run_app(app: typer.Typer) -> None:
    """Run ``app``, with click's own errors (an unknown option, a value of the wrong type, a
    missing argument) printed like every other failure: ``error:`` and a ``fix:`` naming the
    command's ``--help``, never a box; exit 2 as click exits. Nothing else changes: a command's
    ``typer.Exit`` keeps its code, and no arguments still print the help."""
    import typer

    click = _click_exceptions()
    try:
        code = app(standalone_mode=False)
    except click.NoArgsIsHelpError as exc:  # its help was printed already
        raise SystemExit(exc.exit_code) from None
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "the command"
        print_error(exc.format_message(), hint=f"see `{where} --help`")
        raise SystemExit(exc.exit_code) from None
    except click.ClickException as exc:
        print_error(exc.format_message())
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:
        print_error("aborted")
        raise SystemExit(EXIT_ERROR) from None
    # without standalone mode click returns an Exit's code, or what the command returned (None)
    raise SystemExit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


def _click_exceptions() -> Any:
    """The exceptions module of the click typer runs on: its own bundled copy (typer 0.22 and
    later), else click itself."""
    import importlib

    try:
        return importlib.import_module("typer._click.exceptions")
    except ImportError:  # pragma: no cover - an older typer, on click
        return importlib.import_module("click.exceptions")


# What a write to standard output fails with when the reader or the disk is gone (EPIPE: the
# reader closed the pipe, as `| head` does; the others: a full disk or quota, a dead device).
_OUTPUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def run_cli(entry: Callable[[], object]) -> None:
    """Run a CLI's entry point; output that cannot be written ends it with a message, not a
    traceback. A closed pipe exits 1 quietly (as click does); a full disk says so. Commands that
    record state do it only after their output is written, so nothing is lost either way."""
    try:
        entry()
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        _silence_stdout()  # the interpreter's own flush at exit must not fail again
        if exc.errno != errno.EPIPE:
            print_error(
                f"could not write: {exc.strerror or exc}",
                hint="free space on that disk (or send the output elsewhere) and run "
                "the command again",
            )
        raise SystemExit(EXIT_ERROR) from None


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def tolerate_narrow_terminals() -> None:
    """Under an ASCII locale, print unencodable characters as escapes instead of crashing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
