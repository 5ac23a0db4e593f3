"""SIGTERM stops a run or a sweep cleanly: a message and exit 143, no temporary world left in
TMPDIR, no worker process left running.

Before: SIGTERM killed the process where it stood (exit -15), leaving ``skillopt-exp-*`` worlds in
TMPDIR, and a sweep's pool workers (``--workers 2``) were orphaned and hung for good.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="finds stray workers through /proc"
)


def _started(tmp: Path, worlds: int, process: subprocess.Popen[str]) -> None:
    """Wait until ``worlds`` temporary worlds hold transcripts (the nights are under way)."""
    deadline = time.monotonic() + 60
    while len(list(tmp.glob("skillopt-exp-*/dev"))) < worlds:
        assert process.poll() is None, "the run ended before it was stopped"
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)


def _running(marker: str) -> list[int]:
    """Processes whose command line names ``marker`` (forked workers share their parent's)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_text():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "tmp"
    path.mkdir()
    yield path
    for pid in _running(str(tmp_path)):  # what a failing run left behind
        os.kill(pid, signal.SIGKILL)


def _terminate(argv: list[str], tmp: Path, worlds: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    log = tmp.parent / "stderr.txt"
    with log.open("w") as stderr:  # a file, not a pipe a stray worker could hold open
        process = subprocess.Popen(
            [sys.executable, "-m", *argv], cwd=ROOT, env=env, text=True, stderr=stderr
        )
        _started(tmp, worlds, process)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    return subprocess.CompletedProcess(argv, process.returncode, "", log.read_text())


def test_sigterm_removes_the_runs_temporary_world(tmp: Path) -> None:
    stopped = _terminate(["experiments.run_experiment", "--nights", "1"], tmp, 1)
    assert stopped.returncode == 143 and "error: stopped by SIGTERM" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert not list(tmp.iterdir())


def test_sigterm_stops_a_sweeps_workers(tmp: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["experiments.sweep", "--workers", "2", "--seeds", "0", "--nights", "1"]
    stopped = _terminate([*argv, "--out", str(out)], tmp, 2)
    assert stopped.returncode == 143 and "Traceback" not in stopped.stderr
    deadline = time.monotonic() + 10
    while _running(str(out)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(str(out)), "a worker outlived the sweep"
    assert not list(tmp.iterdir())


def test_a_stop_during_the_worlds_removal_still_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM that lands while the finished run removes its world (seen once in CI)."""
    import shutil

    from experiments import world

    root = tmp_path / "skillopt-exp-x"
    (root / "dev" / "a").mkdir(parents=True)
    real = shutil.rmtree
    calls = []

    def stopped_once(path: Path, ignore_errors: bool = False) -> None:
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt
        real(path, ignore_errors=ignore_errors)

    monkeypatch.setattr(world.shutil, "rmtree", stopped_once)
    with pytest.raises(KeyboardInterrupt):
        world._remove(root)
    assert not root.exists()
