"""The absolute engine commands written into harness files at install time.

Harness plugins run from caches and GUI-started processes whose PATH and Python are not the
user's shell's, so every shim names the engine by absolute path: the ``skillopt-sleep`` console
script of *this* interpreter's install (or ``python -c`` into the CLI when there is none), and
``python -m skillopt_sleep.mcp`` for the MCP server. The same commands go to ``engine.json``,
which the plugin's stdlib-only launcher reads.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from skillopt_sleep.install.manifest import install_dir

CLI_FALLBACK = (
    "import sys; from skillopt_sleep.cli import main; sys.argv[0] = 'skillopt-sleep'; main()"
)


def _console_script() -> Path | None:
    name = "skillopt-sleep.exe" if os.name == "nt" else "skillopt-sleep"
    candidates = [Path(sys.executable).parent / name]
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidates.append(Path(scripts) / name)
    for candidate in candidates:
        if candidate.is_file():
            return candidate.absolute()
    return None


def python() -> str:
    return str(Path(sys.executable).absolute())


def cli_argv() -> list[str]:
    """The CLI as an argv (console script next to this interpreter, else ``python -c``)."""
    script = _console_script()
    return [str(script)] if script else [python(), "-c", CLI_FALLBACK]


def mcp_argv() -> list[str]:
    return [python(), "-m", "skillopt_sleep.mcp"]


def shell_command(argv: Sequence[str], *, windows: bool | None = None) -> str:
    """``argv`` as one command line for the shell the harness uses (POSIX sh, or cmd/PowerShell
    double quotes on Windows)."""
    if windows if windows is not None else os.name == "nt":
        return subprocess.list2cmdline(list(argv))
    return shlex.join(argv)


def pointer_path() -> Path:
    return install_dir() / "engine.json"


def pointer() -> dict[str, object]:
    """What ``engine.json`` holds: the commands the plugin launcher runs."""
    return {"python": python(), "cli": cli_argv(), "mcp": mcp_argv()}


def resolves(argv: Sequence[str]) -> bool:
    """Whether the first word of ``argv`` is still an executable (``doctor`` checks this)."""
    first = argv[0] if argv else ""
    return bool(first) and (Path(first).is_file() or shutil.which(first) is not None)


PLACEHOLDER = "{{SKILLOPT_SLEEP}}"


def render(template_text: str, *, windows: bool | None = None) -> str:
    """A shipped template with the engine's absolute command filled in."""
    return template_text.replace(PLACEHOLDER, shell_command(cli_argv(), windows=windows))
