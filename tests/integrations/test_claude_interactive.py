"""Claude Code's interactive UI under tmux, offline against the loopback fake: typing
`/skillopt-sleep status` runs the engine (its status reaches the model), only one
`/skillopt-sleep` entry is offered, and `/exit` fires the plugin's SessionEnd hook."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from skillopt_core.testing import FakeModelServer
from skillopt_core.testing.harness import find_cli, offline_harness
from tests.integrations._toolfake import full_text

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(find_cli("claude") is None, reason="the claude CLI is not installed"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

FAKE_KEY_TAIL = "sk-fake-loopback-key"[-20:]


def _until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    """Poll ``check`` (a hang guard for a UI that answers asynchronously, not a timing test)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def test_slash_command_typed_in_the_ui_runs_the_engine_and_exit_records_the_session(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    with (
        FakeModelServer(["Here is the status."]) as fake,
        offline_harness(
            "claude", fake, tmp_path, env_overrides={"SKILLOPT_SLEEP_HOME": str(state)}
        ) as h,
    ):
        project = h.project("webapp")
        installed = subprocess.run(
            [sys.executable, "-m", "skillopt_sleep.install", "install", "claude-code"],
            env=dict(h.env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert installed.returncode == 0, installed.stderr
        trusted = {"hasTrustDialogAccepted": True, "allowedTools": []}
        settings = {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [FAKE_KEY_TAIL], "rejected": []},
            "projects": {str(project): trusted},
        }
        # ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json when that is set (it is here)
        for folder in (h.home, h.home / ".claude"):
            (folder / ".claude.json").write_text(json.dumps(settings))
        env = {**h.env, "TERM": "xterm-256color"}
        command = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        socket = str(tmp_path / "tmux.sock")
        tmux = ["tmux", "-S", socket]
        subprocess.run(
            [*tmux, "new-session", "-d", "-x", "160", "-y", "50", "-c", str(project),
             f"{command} {shlex.quote(h.executable)}"],
            check=True,
        )  # fmt: skip

        def screen() -> str:
            return subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True, check=False
            ).stdout

        def keys(*args: str) -> None:
            subprocess.run([*tmux, "send-keys", *args], check=True)

        try:
            _until(lambda: "? for shortcuts" in screen(), "the prompt")
            keys("-l", "/skillopt-sleep")
            _until(lambda: "skillopt-sleep" in screen().split("/skillopt-sleep", 1)[-1], "menu")
            offered = screen()
            assert "skillopt-sleep:skillopt-sleep" not in offered, offered
            keys("-l", " status")
            keys("Enter")
            _until(
                lambda: any("Pending proposals" in full_text(r.body) for r in fake.requests),
                "the engine's status in a model request",
            )
            _until(lambda: "Here is the status." in screen(), "the model's answer")
            keys("-l", "/exit")
            keys("Enter")
            recorded = state / "session-end.jsonl"
            _until(recorded.is_file, "the SessionEnd hook's record")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{screen()}") from None
        finally:
            subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
    (line, *_) = recorded.read_text().splitlines()
    record = json.loads(line)
    assert record["cwd"] == str(project) and Path(record["transcript_path"]).is_file()
    assert record["reason"] == "prompt_input_exit"
    sent = next(
        full_text(r.body) for r in fake.requests if "Pending proposals" in full_text(r.body)
    )
    assert str(project) in sent
