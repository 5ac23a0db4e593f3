"""`skillopt train` stopped by SIGTERM (a shutdown, `kill`) unwinds like Ctrl-C: exit 143 with
one line saying so (the same command resumes it). It vanished without a word (killed by the
signal), as only the nightly engine turned SIGTERM into an interrupt."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TOY = Path(__file__).resolve().parents[2] / "skillopt_core" / "data" / "toy"


def test_sigterm_stops_a_training_run_with_143_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = [sys.executable, "-c", "from skillopt_core.cli import main; main()", "train",
            "--split-dir", str(TOY),
            "--out-root", str(out), "--backend", "mock", "--epochs", "400"]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    deadline = time.monotonic() + 60
    while not (out / "history.json").exists() and process.poll() is None:
        assert time.monotonic() < deadline, "the run never saved a step"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "stopped by SIGTERM" in err
