"""`skillopt-sleep` command line. Each noun lives in its own module and registers on ``app``.

Command modules import nothing heavy at module level: `skillopt-sleep --help` must stay fast and
must never import torch. ``app`` is assembled on first use, so a plain `skillopt-sleep harvest`
(parsed by ``cli._harvesting.run_plain``) starts without building the other commands, and without
importing typer at all unless it fails.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    app: typer.Typer

_COMMAND_MODULES: tuple[str, ...] = (
    "harvest",
    "mine",
    "night",
    "refused",
    "config",
    "mcp",
    "install",
    "schedule",
    "demo",
)


def _assembled() -> typer.Typer:
    """The application with every command registered."""
    for module in _COMMAND_MODULES:
        importlib.import_module(f"skillopt_sleep.cli.{module}")
    from skillopt_sleep.cli._app import app, unwrap_help

    unwrap_help(app)
    return app


def __getattr__(name: str) -> Any:  # PEP 562: `from skillopt_sleep.cli import app`
    if name == "app":
        return _assembled()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    try:
        from skillopt_core.cli_errors import run_cli, tolerate_narrow_terminals

        tolerate_narrow_terminals()  # an ASCII locale prints escapes instead of dying mid-output
        run_cli(_dispatch)
    except KeyboardInterrupt:  # Ctrl-C before a command's own handling (while importing)
        _interrupted()


def _interrupted() -> None:
    """``error: interrupted`` and exit 130, as every command says it, printed without Rich (whose
    import may be what the interrupt stopped)."""
    sys.stderr.write(
        "error: interrupted\n  fix: nothing was done yet; run the same command again\n"
    )
    raise SystemExit(130)


def _dispatch() -> None:
    if sys.argv[1:2] == ["harvest"]:
        from skillopt_sleep.cli._harvesting import run_plain

        if run_plain(sys.argv[2:]):
            return
    from skillopt_core.cli_errors import run_app

    run_app(_assembled())


__all__ = ["app", "main"]
