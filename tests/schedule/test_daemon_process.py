"""`skillopt-sleep daemon` as a real process: ready, then a clean exit 0 on SIGTERM / SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_daemon_stops_cleanly_on_a_signal(tmp_path: Path, signum: int) -> None:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects"
    projects.mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SKILLOPT_SLEEP_", "CLAUDE_", "CODEX_", "COPILOT_"))
    }
    env.update(
        HOME=str(home),
        SKILLOPT_SLEEP_HOME=str(tmp_path / "state"),
        SKILLOPT_SLEEP_CONFIG=str(tmp_path / "no-config.toml"),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillopt_sleep", "daemon", "-p", str(project), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        ready = json.loads(proc.stdout.readline())
        assert ready["event"] == "ready"
        assert ready["watching"] == [str(projects)]
        assert ready["at"] == "03:17" and ready["next_run"].endswith("Z")
        (projects / "-tmp-project").mkdir()
        (projects / "-tmp-project" / "s.jsonl").write_text("{}\n")  # the observer is live
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1]) == {"event": "stopped", "night_running": False}
