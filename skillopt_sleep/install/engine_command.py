"""The absolute engine commands written into harness files at install time.

Harness plugins run from caches and GUI-started processes whose PATH and Python are not the
user's shell's, so every shim names the engine by absolute path: the ``skillopt-sleep`` console
script of *this* interpreter's install (or ``python -c`` into the CLI when there is none), and
``python -m skillopt_sleep.mcp`` for the MCP server. The same commands go to ``engine.json``,
which the plugin's stdlib-only launcher reads.

A clone (or venv) moved or deleted after install would make every shim fail where the user sees
nothing: a hook's failure is swallowed, an MCP server just does not start. So on POSIX a shim
runs a wrapper in ``<state>/install/bin`` instead (:func:`wrappers`): a few lines of sh that
check the engine is still there, else print one line naming it and the fix (:func:`gone`) to
stderr and exit 127. Reinstalling rewrites the wrappers, so the harness files need not change.
Windows has no sh to run one with: its shims name the engine directly, as before.
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


REINSTALL = (
    "reinstall from the clone: bash scripts/bootstrap.sh && .venv/bin/skillopt-sleep install"
)
"""The fix for a moved or deleted engine (the plugin's stdlib ``_locate.py`` says the same)."""
GONE_EXIT = 127  # the shell's "command not found"


def gone(path: str) -> str:
    """The one line a shim prints when the engine it runs is no longer there."""
    return f"skillopt-sleep: the engine {path} is gone (moved or deleted); {REINSTALL}"


def wrapped(*, windows: bool | None = None) -> bool:
    """Whether shims run the checking wrappers (POSIX), not the engine itself (Windows)."""
    return not (windows if windows is not None else os.name == "nt")


def wrapper_dir() -> Path:
    return install_dir() / "bin"


def wrappers(*, windows: bool | None = None) -> dict[Path, list[str]]:
    """Each wrapper install writes and the engine argv it runs; none on Windows."""
    if not wrapped(windows=windows):
        return {}
    return {
        wrapper_dir() / "skillopt-sleep": cli_argv(),
        wrapper_dir() / "skillopt-sleep-python": [python()],
    }


def wrapper_script(argv: Sequence[str]) -> str:
    """A POSIX sh wrapper that runs ``argv`` with its own arguments, after checking that the
    engine's files (``argv[0]`` and the interpreter behind it) are still executable."""
    needs = dict.fromkeys([argv[0], python()])
    checks = "".join(
        f"[ -x {shlex.quote(path)} ] || "
        f"{{ printf '%s\\n' {shlex.quote(gone(path))} >&2; exit {GONE_EXIT}; }}\n"
        for path in needs
    )
    header = (
        "#!/bin/sh\n# Written by `skillopt-sleep install`: runs the engine, or says it is gone.\n"
    )
    return f'{header}{checks}exec {shlex.join(argv)} "$@"\n'


def shim_cli(*, windows: bool | None = None) -> list[str]:
    """The CLI as harness files name it: the wrapper, else (Windows) the engine itself."""
    return [str(wrapper_dir() / "skillopt-sleep")] if wrapped(windows=windows) else cli_argv()


def shim_mcp(*, windows: bool | None = None) -> list[str]:
    """The MCP server as harness configs name it (through the wrapped interpreter on POSIX)."""
    wrapper = wrapper_dir() / "skillopt-sleep-python"
    return [str(wrapper) if wrapped(windows=windows) else python(), "-m", "skillopt_sleep.mcp"]


def resolves(argv: Sequence[str]) -> bool:
    """Whether the first word of ``argv`` is still an executable (``doctor`` checks this)."""
    first = argv[0] if argv else ""
    return bool(first) and (Path(first).is_file() or shutil.which(first) is not None)


PLACEHOLDER = "{{SKILLOPT_SLEEP}}"


def render(template_text: str, *, windows: bool | None = None) -> str:
    """A shipped template with the engine's absolute command filled in."""
    command = shell_command(shim_cli(windows=windows), windows=windows)
    return template_text.replace(PLACEHOLDER, command)
