"""MCP tests: isolated state, the relocated transcripts, and no night process left running."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.mcp import jobfile
from tests._isolation import isolate_sleep_state
from tests.engine._world import World, make_world

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """State under the test's temp dir; the repository importable by a night process (the test
    doubles in this folder run as ``python -m tests.mcp_nights...``); afterwards, every night process
    a test left running is killed with its group and reaped."""
    isolate_sleep_state(tmp_path, monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    yield
    if not hasattr(os, "killpg"):  # Windows: nights run inside the server
        return
    for lock in (tmp_path / "state").glob(f"projects/*/jobs/*/{jobfile.LOCK_FILE}"):
        pid = jobfile.lock_holder(lock.parent) or ""
        if pid.isdigit() and int(pid) not in (os.getpid(), os.getpgrp()):
            for kill in (os.killpg, os.kill):  # its group, and itself should it have none
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(int(pid), signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(pid), 0)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """The genuine transcripts under a temp HOME, wired in through the environment layer (a
    night process inherits it); the backend is the deterministic ``mock``, the default."""
    made = make_world(tmp_path / "w")
    monkeypatch.setenv("HOME", str(made.home))
    for key, value in made.overrides().items():
        monkeypatch.setenv("SKILLOPT_SLEEP_" + key.replace(".", "_").upper(), str(value))
    return made
