"""Claude Code 2.1, offline against the loopback fake, in a temporary HOME:
the plugin validates; `skillopt-sleep install claude-code` adds the marketplace, installs the
plugin and the user-level command; `claude -p "/skillopt-sleep status"` runs the engine (its status
reaches the model); the plugin's SessionEnd hook records the session; uninstall undoes it all."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_core.testing import FakeModelServer
from skillopt_core.testing.harness import OfflineHarness, find_cli, offline_harness
from skillopt_sleep.install.layout import plugin_dir
from tests.integrations._toolfake import full_text

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(find_cli("claude") is None, reason="the claude CLI is not installed"),
]


ALLOW_MCP = "mcp__plugin_skillopt-sleep_skillopt_sleep__*"
"""Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>."""


def _engine(h: OfflineHarness, *args: str) -> subprocess.CompletedProcess[str]:
    """`skillopt-sleep ...` as the user would run it in that HOME."""
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep.install", *args],
        env=dict(h.env),
        cwd=str(h.home),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_plugin_and_marketplace_validate(tmp_path: Path) -> None:
    with FakeModelServer() as fake, offline_harness("claude", fake, tmp_path) as h:
        for target in (
            plugin_dir("claude-code"),
            plugin_dir("claude-code") / ".claude-plugin" / "plugin.json",
        ):
            done = h.run(["plugin", "validate", str(target)], cwd=h.home, timeout_s=60)
            assert done.returncode == 0, done.stdout + done.stderr
            assert "Validation passed" in done.stdout and "warning" not in done.stdout.lower()


def test_install_then_slash_command_runs_the_engine_and_the_hook_records_the_session(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    env = {"SKILLOPT_SLEEP_HOME": str(state)}
    with (
        FakeModelServer(["Here is your SkillOpt-Sleep status."]) as fake,
        offline_harness("claude", fake, tmp_path, env_overrides=env) as h,
    ):
        project = h.project("webapp")
        installed = _engine(h, "install", "claude-code")
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert "skip" not in installed.stdout, installed.stdout
        command = h.home / ".claude" / "commands" / "skillopt-sleep.md"
        assert command.is_file()
        listed = h.run(["plugin", "list"], cwd=h.home, timeout_s=60)
        assert "skillopt-sleep" in listed.stdout, listed.stdout + listed.stderr
        again = _engine(h, "install", "claude-code")
        assert again.returncode == 0 and "create" not in again.stdout, again.stdout

        done = h.run(["-p", "/skillopt-sleep status"], cwd=project, timeout_s=180)
        log = done.stdout[-2000:] + done.stderr[-2000:]
        assert done.returncode == 0 and "Unknown command" not in done.stdout, log
        sent = [full_text(r.body) for r in fake.generation_requests]
        assert any("Pending proposals" in s and str(project) in s for s in sent), log

        recorded = state / "session-end.jsonl"
        assert recorded.is_file(), "the SessionEnd hook did not record the session"
        lines = [json.loads(line) for line in recorded.read_text().splitlines()]
        assert any(
            r["session_id"] and Path(r["transcript_path"]).is_file() and r["cwd"] == str(project)
            for r in lines
        ), lines

        removed = _engine(h, "uninstall", "claude-code")
        assert removed.returncode == 0, removed.stdout + removed.stderr
        assert not command.exists()
        listed = h.run(["plugin", "list"], cwd=h.home, timeout_s=60)
        assert "skillopt-sleep@" not in listed.stdout, listed.stdout


def test_the_plugin_mcp_server_answers_from_the_plugin_cache(tmp_path: Path) -> None:
    """The plugin's `.mcp.json` starts `scripts/engine.py mcp` from Claude Code's plugin cache; the
    launcher finds the engine through engine.json and the status tool's result comes back."""
    from tests.integrations._toolfake import (
        ToolFakeServer,
        call_tool_once,
        has_tool_result,
        matching,
    )

    state, project = tmp_path / "state", tmp_path / "webapp"
    project.mkdir()
    respond = call_tool_once(
        matching("skillopt_sleep", "status"), {"project": str(project)}, "Status received."
    )
    with (
        ToolFakeServer(respond) as fake,
        offline_harness(
            "claude",
            fake,
            tmp_path,
            # `claude -p` may start answering before slow MCP servers connect; make it wait
            env_overrides={
                "SKILLOPT_SLEEP_HOME": str(state),
                "MCP_CONNECTION_NONBLOCKING": "false",
            },
        ) as h,
    ):
        installed = _engine(h, "install", "claude-code")
        assert installed.returncode == 0, installed.stderr
        done = h.run(
            ["-p", "What is the SkillOpt-Sleep status?", "--allowedTools", ALLOW_MCP],
            cwd=project,
            timeout_s=180,
        )
    log = done.stdout[-2000:] + done.stderr[-2000:]
    answered = [r for r in fake.generation_requests if has_tool_result(r.body)]
    assert answered, log
    result = full_text(answered[-1].body)
    assert str(project) in result and "state_dir" in result, log


def test_other_actions_run_the_engine_through_the_allowed_bash_tool(tmp_path: Path) -> None:
    """`/skillopt-sleep proposals`: the model runs the engine with Bash, which the command's
    `allowed-tools` permits without a prompt, and the engine's answer comes back."""
    from tests.integrations._toolfake import ToolCall, ToolFakeServer, has_tool_result

    state, project = tmp_path / "state", tmp_path / "webapp"
    project.mkdir()
    engine: list[str] = []

    def respond(body: dict) -> object:
        if has_tool_result(body):
            return "Listed."
        return ToolCall("Bash", {"command": f"{engine[0]} proposals --json"})  # as instructed

    with (
        ToolFakeServer(respond) as fake,
        offline_harness(
            "claude", fake, tmp_path, env_overrides={"SKILLOPT_SLEEP_HOME": str(state)}
        ) as h,
    ):
        installed = _engine(h, "install", "claude-code", "--no-plugin")
        assert installed.returncode == 0, installed.stderr
        command = (h.home / ".claude" / "commands" / "skillopt-sleep.md").read_text()
        allowed = re.search(r"allowed-tools: Bash\((.+):\*\)", command)
        assert allowed, command
        engine.append(allowed.group(1))  # the engine as the command names it (its wrapper)
        done = h.run(["-p", "/skillopt-sleep proposals"], cwd=project, timeout_s=180)
    log = done.stdout[-2000:] + done.stderr[-2000:]
    answered = [r for r in fake.generation_requests if has_tool_result(r.body)]
    assert answered, log
    results = [
        part
        for message in answered[-1].body["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "tool_result"
    ]
    assert results, log
    output = json.dumps(results[-1])
    assert "[]" in output and not results[-1].get("is_error"), output


def test_the_command_never_asks_for_a_shell_expansion() -> None:
    """`--project "$PWD"` in the command's instructions made Claude Code refuse every action but
    status in `claude -p` ("Contains shell syntax ... cannot be statically analyzed")."""
    text = (plugin_dir("claude-code") / "user-command" / "skillopt-sleep.md").read_text()
    commands = [line for line in text.splitlines() if "{{SKILLOPT_SLEEP}} <action>" in line]
    assert commands and not any("$" in line for line in commands)
    assert "timeout` 600000" in text and "never in the" in text
