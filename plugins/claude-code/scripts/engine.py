"""Run the installed SkillOpt-Sleep engine: ``engine.py <cli args>`` or ``engine.py mcp``.

Claude Code copies only this plugin folder into its cache, so the engine is found through what
``skillopt-sleep install`` recorded (``engine.json``: absolute interpreter and commands), then a
``skillopt-sleep`` on PATH, then an interpreter that can import ``skillopt_sleep``. When none
works it says why on stderr: the recorded engine that is gone (the clone or its venv moved or
deleted) and the fix, or how to install one; a damaged ``engine.json`` counts as none, and an
engine that cannot be started is one line on stderr, never a traceback. Stdlib only; the exit
code is the engine's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _locate import missing_engine, recorded

HINT = (
    "SkillOpt-Sleep engine not found. It is not on PyPI: install it from its clone "
    "(`pip install /path/to/skillopt-sleep`, or `bash scripts/bootstrap.sh` in the clone), "
    "then run `skillopt-sleep install claude-code`."
)


def _recorded(kind: str) -> list[str] | None:
    argv: list[str] | None = recorded(kind)
    if argv and os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK):
        return argv
    return None


def _fallback(kind: str) -> list[str] | None:
    if kind == "cli" and shutil.which("skillopt-sleep"):
        return [str(shutil.which("skillopt-sleep"))]
    probe = subprocess.run(
        [sys.executable, "-c", "import skillopt_sleep.cli"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        return None
    if kind == "mcp":
        return [sys.executable, "-m", "skillopt_sleep.mcp"]
    return [sys.executable, "-c", "import sys; from skillopt_sleep.cli import main; main()"]


def main(argv: list[str]) -> int:
    kind, rest = ("mcp", []) if argv[:1] == ["mcp"] else ("cli", argv)
    command = _recorded(kind) or _fallback(kind)
    if command is None:
        print(missing_engine(kind) or HINT, file=sys.stderr)
        return 1
    try:
        if os.name == "nt":
            return subprocess.call([*command, *rest])
        os.execv(command[0], [*command, *rest])
    except OSError as exc:
        print(f"skillopt-sleep: cannot run {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0  # pragma: no cover (execv does not return)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
