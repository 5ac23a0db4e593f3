"""Ctrl-C (a real SIGINT) during a long `skillopt-sleep` command exits 130 with ``error:
interrupted`` and a fix naming this CLI. `harvest` and `mine` exited 130 silently (typer turns
the interrupt into a bare exit), and the other commands' fix pointed at `skillopt train`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# The engine function each command calls first, replaced by one that sends this process SIGINT
# and waits for it, as Ctrl-C in a terminal would arrive while the command works.
CASES = [
    ("skillopt_sleep.harvest", "HarvestRun", ["harvest"]),
    ("skillopt_sleep.harvest", "HarvestRun", ["harvest", "--json"]),
    ("skillopt_sleep.engine", "preview_families", ["mine"]),
    ("skillopt_sleep.engine", "status", ["status"]),
    ("skillopt_sleep.engine", "run_night", ["run"]),
]

SCRIPT = """
import os, signal, sys, time, importlib
# a process started in the background by a non-interactive shell (as CI may run the suite)
# inherits SIGINT ignored, and Python then installs no handler: restore a terminal's
signal.signal(signal.SIGINT, signal.default_int_handler)
module = importlib.import_module({module!r})
def interrupted(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
setattr(module, {attr!r}, interrupted)
sys.argv = ["skillopt-sleep", *{args!r}]
from skillopt_sleep.cli import main
main()
"""


@pytest.mark.parametrize(("module", "attr", "args"), CASES, ids=lambda v: str(v))
def test_ctrl_c_exits_130_with_one_message(
    module: str, attr: str, args: list[str], tmp_path: Path
) -> None:
    code = SCRIPT.format(module=module, attr=attr, args=args)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 130, done.stderr
    if "--json" not in args:  # a JSON stream may have opened its array already
        assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == "error: interrupted", done.stderr
    assert len(lines) == 2 and lines[1].startswith("  fix: ")
    assert "skillopt train" not in done.stderr and "Traceback" not in done.stderr


IMPORTING = """
import sys

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == "skillopt_core.cli_errors":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupting())
sys.argv = ["skillopt-sleep", "status"]
from skillopt_sleep.cli import main
main()
"""


def test_ctrl_c_while_starting_is_no_traceback(tmp_path: Path) -> None:
    """Ctrl-C in the first half second (the imports, before any command runs) printed a
    traceback."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORTING],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 130
    assert done.stderr.splitlines()[0] == "error: interrupted", done.stderr
    assert "Traceback" not in done.stderr
