"""``python -m skillopt_sleep.mcp [--project P]``: the stdio server, for configs that name an
interpreter. It takes the options of ``skillopt-sleep mcp`` (stdlib parsing, so it starts as
fast); an option it does not know is refused on stderr with exit 2, never ignored."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from skillopt_sleep.mcp import serve


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m skillopt_sleep.mcp",
        description="Serve the nightly engine as an MCP server on stdio.",
    )
    parser.add_argument(
        "--project",
        "-p",
        type=Path,
        help="Project when a call names none and the client declares no workspace root "
        "(and the one the resources show).",
    )
    project: Path | None = parser.parse_args(argv).project
    serve(project.expanduser().resolve() if project is not None else None)


if __name__ == "__main__":
    main()
