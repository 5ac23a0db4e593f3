"""Copilot CLI, offline against the loopback fake: after `skillopt-sleep install copilot`, the
model asks for the MCP status tool and the tool's result (the engine's status) comes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.testing.harness import find_cli, offline_harness
from skillopt_sleep.install import Homes, install
from tests.integrations._toolfake import (
    ToolFakeServer,
    call_tool_once,
    full_text,
    has_tool_result,
    matching,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(find_cli("copilot") is None, reason="the copilot CLI is not installed"),
]


def test_copilot_calls_the_mcp_status_tool_and_gets_the_engine_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, project = tmp_path / "state", tmp_path / "webapp"
    project.mkdir()
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(state))
    env = {"SKILLOPT_SLEEP_HOME": str(state)}
    # Copilot CLI 1.0 declares no MCP roots, so the model names the project, as the installed
    # skill and instructions tell it to (the server never falls back to its own cwd).
    respond = call_tool_once(
        matching("skillopt_sleep", "status"), {"project": str(project)}, "Status received."
    )
    with (
        ToolFakeServer(respond) as fake,
        offline_harness("copilot", fake, tmp_path, env_overrides=env) as h,
    ):
        install(["copilot"], homes=Homes.from_env(h.env, h.home))
        assert '"skillopt_sleep"' in (h.home / ".copilot" / "mcp-config.json").read_text()
        done = h.ask("What is the SkillOpt-Sleep status?", cwd=project, timeout_s=180)
    log = (done.stdout[-2000:], done.stderr[-2000:])
    requests = fake.generation_requests
    assert any("skillopt_sleep" in full_text(r.body) for r in requests), log
    first = full_text(requests[0].body)
    assert "from past Copilot sessions" in first, "the personal skill is not offered"
    answered = [r for r in requests if has_tool_result(r.body)]
    assert answered, log
    result = full_text(answered[-1].body)
    assert str(project) in result and "nights" in result and "state_dir" in result
    assert str(state / "projects") in result  # the server ran with the user's environment
    assert done.returncode == 0 and "Status received." in done.stdout, log
