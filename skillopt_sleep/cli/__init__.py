"""`skillopt-sleep` command line. Each noun lives in its own module and registers on ``app``.

Command modules import nothing heavy at module level: `skillopt-sleep --help` must stay fast and
must never import torch.
"""

from __future__ import annotations

import importlib

from skillopt_sleep.cli._app import app

_COMMAND_MODULES: tuple[str, ...] = ("harvest", "mine", "night", "config", "mcp", "install", "schedule", "demo")

for _module in _COMMAND_MODULES:
    importlib.import_module(f"skillopt_sleep.cli.{_module}")


def main() -> None:
    app()


__all__ = ["app", "main"]
