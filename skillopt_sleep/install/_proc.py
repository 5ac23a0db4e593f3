"""Run a harness CLI (``claude plugin install``, ``codex --version``) without ever hanging on it.

The command runs in a process group of its own with no stdin; if it does not finish in time the
whole group is killed (a CLI's helper processes too) and the outcome says so, instead of a
``TimeoutExpired`` traceback and orphans left running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

VERSION_TIMEOUT_S = 30.0
"""How long ``<harness> --version`` may take (doctor, and install choosing Codex's skill folder)."""


@dataclass(frozen=True)
class Ran:
    """What a command printed, and ``failure``: "" when it exited 0, else why not."""

    stdout: str
    stderr: str
    failure: str

    def last_words(self) -> str:
        """The failure as a user reads it: the command's last line of output, else ``failure``."""
        lines = (self.stderr or self.stdout).strip().splitlines()
        return lines[-1] if lines and self.failure.startswith("it exited") else self.failure


def run_bounded(argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None) -> Ran:
    try:
        child = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
    except OSError as exc:
        return Ran("", "", f"could not start it: {exc.strerror or exc}")
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(child)
        return Ran("", "", f"it did not finish in {timeout:g} s and was stopped")
    failure = "" if child.returncode == 0 else f"it exited with status {child.returncode}"
    return Ran(out or "", err or "", failure)


def _stop(child: subprocess.Popen[str]) -> None:
    """Kill ``child`` and its process group (the helpers a CLI starts), then reap it."""
    if os.name == "nt":  # pragma: no cover - Windows has no process groups to signal
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(child.pid)], capture_output=True, check=False
        )
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
    child.kill()
    try:
        child.communicate(timeout=5)
    except subprocess.TimeoutExpired:  # a grandchild that left the group still holds the pipes
        child.wait()
        for pipe in (child.stdout, child.stderr):
            if pipe is not None:
                pipe.close()
