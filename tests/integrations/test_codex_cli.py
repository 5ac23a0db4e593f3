"""Codex, offline against the loopback fake, in a temporary HOME / CODEX_HOME:
`bash plugins/codex/install.sh` installs the skill and the MCP server, `codex exec` lists the
skill in what it sends and gets the MCP status tool's result back, and `uninstall.sh` leaves the
home exactly as it was. `codex exec` (approval policy `never`) starts a night with the MCP
`dry_run` tool, which the install approved, and is still refused `adopt`."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.testing.harness import OfflineHarness, find_cli, offline_harness
from tests.integrations._toolfake import (
    ToolFakeServer,
    call_tool_once,
    full_text,
    has_tool_result,
    matching,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration
needs_codex = pytest.mark.skipif(find_cli("codex") is None, reason="the codex CLI is not installed")


def _snapshot(home: Path) -> dict[str, str]:
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file() and "tmp" not in p.relative_to(home).parts[:1]
    }


def _script(name: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "plugins" / "codex" / name), *args],
        env=env,
        cwd=env["HOME"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@needs_codex
def test_install_sh_then_codex_exec_sees_the_skill_and_calls_the_mcp_status(
    tmp_path: Path,
) -> None:
    state, project = tmp_path / "state", tmp_path / "webapp"
    project.mkdir()
    env_extra = {
        "SKILLOPT_SLEEP_HOME": str(state),
        "SKILLOPT_SLEEP_PYTHON": sys.executable,
        "SKILLOPT_SLEEP_PROJECT": str(project),
    }
    # Codex neither declares MCP roots nor passes its environment to servers, so the model names
    # the project, as the installed skill tells it to.
    respond = call_tool_once(
        matching("skillopt_sleep", "status"), {"project": str(project)}, "Status received."
    )
    with (
        ToolFakeServer(respond) as fake,
        offline_harness("codex", fake, tmp_path, env_overrides=env_extra) as h,
    ):
        before = _snapshot(h.home)
        installed = _script("install.sh", dict(h.env))
        assert installed.returncode == 0, installed.stderr
        skill = h.home / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md"
        assert skill.is_file() and not (h.home / ".codex" / "skills" / "skillopt-sleep").exists()
        assert "[mcp_servers.skillopt_sleep]" in (h.home / ".codex" / "config.toml").read_text()
        again = _script("install.sh", dict(h.env))
        assert again.returncode == 0 and "create" not in again.stdout, again.stdout

        # A one-shot `codex exec` does not wait for MCP servers that are still starting unless
        # they are required; the installed config is left optional (a broken engine must never
        # stop Codex from starting), so the test asks for the wait on the command line.
        wait = ["-c", "mcp_servers.skillopt_sleep.required=true"]
        done = h.ask("What is the SkillOpt-Sleep status?", cwd=project, extra_args=wait)
        log = (done.stdout[-2000:], done.stderr[-2000:])
        requests = fake.generation_requests
        assert requests, log
        first = full_text(requests[0].body)
        assert "skillopt-sleep: Improve this project's skills" in first or (
            "skillopt-sleep" in first and "from past Codex sessions" in first
        ), "the skill is not in Codex's skills list"
        answered = [r for r in requests if has_tool_result(r.body)]
        assert answered, log
        result = full_text(answered[-1].body)
        assert str(project) in result and "state_dir" in result, result[-3000:]
        assert str(state / "projects") in result  # SKILLOPT_SLEEP_HOME reached the server

        removed = _script("uninstall.sh", dict(h.env))
        assert removed.returncode == 0, removed.stderr
        after = _snapshot(h.home)
        # Codex itself wrote sessions, logs and caches meanwhile; everything that was there before
        # is byte-identical (config.toml included) and nothing of ours is left.
        assert {k: after.get(k) for k in before} == before
        assert not (h.home / ".agents").exists()
        assert not any("skillopt" in k for k in after), [k for k in after if "skillopt" in k]


def _tool_output(body: Mapping[str, Any]) -> str:
    """What Codex sent back as the result of the model's tool call (a tool's text, or why Codex
    did not run it)."""
    outputs = [
        item.get("output")
        for item in body.get("input") or []
        if isinstance(item, Mapping) and item.get("type") == "function_call_output"
    ]
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in outputs)


@needs_codex
@pytest.mark.parametrize("state_from", ["SKILLOPT_SLEEP_HOME", "XDG_STATE_HOME"])
def test_codex_exec_starts_a_night_over_mcp_and_is_still_refused_adopt(
    tmp_path: Path, state_from: str
) -> None:
    """`codex exec` has approval policy `never`: a tool Codex would ask about is refused. `dry_run`
    (not read-only, open-world) is one, so only the install's approval lets it start a night;
    `adopt` must stay refused. Codex gives an MCP server a minimal environment: the night must
    still land in the state dir the user's shell sees (before, an ``XDG_STATE_HOME`` was dropped
    and the night went where ``status`` never looked)."""
    state, project = tmp_path / "state", tmp_path / "webapp"
    project.mkdir()
    env_extra = {
        "SKILLOPT_SLEEP_PYTHON": sys.executable,
        "SKILLOPT_SLEEP_PROJECT": str(project),
    }
    if state_from == "SKILLOPT_SLEEP_HOME":
        env_extra["SKILLOPT_SLEEP_HOME"] = str(state)
    else:
        env_extra["XDG_STATE_HOME"] = str(tmp_path / "xdg")
        state = tmp_path / "xdg" / "skillopt-sleep"
    arguments = {
        "dry_run": {"project": str(project), "backend": "mock", "max_calls": 50},
        "adopt": {"project": str(project)},
    }
    wanted = ["dry_run"]

    def respond(body: Mapping[str, Any]) -> Any:
        tool = wanted[0]
        return call_tool_once(matching("skillopt_sleep", tool), arguments[tool])(body)

    def ask(h: OfflineHarness, fake: ToolFakeServer, prompt: str) -> str:
        seen = len(fake.generation_requests)
        wait = ["-c", "mcp_servers.skillopt_sleep.required=true"]
        done = h.ask(prompt, cwd=project, extra_args=wait, timeout_s=60)
        answered = [r for r in fake.generation_requests[seen:] if has_tool_result(r.body)]
        assert answered, (done.stdout[-2000:], done.stderr[-2000:])
        return _tool_output(answered[-1].body)

    with (
        ToolFakeServer(respond) as fake,
        offline_harness("codex", fake, tmp_path, env_overrides=env_extra) as h,
    ):
        installed = _script("install.sh", dict(h.env))
        assert installed.returncode == 0, installed.stderr

        started = ask(h, fake, "Start a SkillOpt-Sleep dry run.")
        assert "approval" not in started.lower(), started
        assert "job-" in started and str(project) in started, started
        assert list(state.glob("projects/*/jobs/*")), "the server never started the night"

        wanted[0] = "adopt"
        refused = ask(h, fake, "Adopt the SkillOpt-Sleep proposal.")
        assert "approval" in refused.lower(), refused
