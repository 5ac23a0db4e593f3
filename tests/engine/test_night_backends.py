"""The same night through real clients: the OpenAI SDK and the real `claude` CLI, both against
the loopback fake model; and the engine's own prompts never come back as mined sessions."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.markers import ENGINE_MARKER
from skillopt_core.testing import FakeModelServer, request_text
from skillopt_core.testing.harness import find_cli, offline_harness
from skillopt_sleep.engine import load_config, run_night
from tests.engine._world import World

_NEEDS = re.compile(r"\[needs: ([^\]]+)\]")


def responder(body: Mapping[str, Any]) -> str:
    """A tiny world: the optimizer turns the judge's [needs: ...] into an edit; the target knows
    about the session cookie only once the skill says so."""
    text = json.dumps(body)
    if "You are the optimizer of a skill document" in text:
        needs = _NEEDS.findall(text.replace('\\"', '"'))
        edits = [{"op": "add", "anchor": "", "content": f"- {needs[0]}"}] if needs else []
        return json.dumps({"edits": edits})
    if "long-term guidance block" in text or "private notebook" in text:
        return "- Keep the session cookie in mind."
    if "Include 'session cookie'" in text or "Include \\u0027session cookie" in text:
        return "Renamed the session cookie and the login test passes."
    return "Fixed the test."


def _check_night(report: Any) -> None:
    assert report.outcome == "staged", report.message
    assert report.accepted and "session cookie" in report.accepted[0].content
    (change,) = report.changes
    assert change.val_after > change.val_before


def test_night_through_the_openai_sdk(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(responder) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        config = load_config(
            world.webapp,
            world.overrides(
                **{
                    "backends.optimizer": "openai:fake-model",
                    "backends.target": "openai:fake-model",
                }
            ),
        )
        report = run_night(world.webapp, config, home=world.home)
        assert fake.generation_requests
        prompts = [request_text(r.api, r.body) for r in fake.generation_requests]
    _check_night(report)
    assert all(ENGINE_MARKER in p for p in prompts)


@pytest.mark.integration
def test_night_with_the_claude_cli_as_target(world: World, tmp_path: Path) -> None:
    if find_cli("claude") is None:
        pytest.skip("the real claude CLI is not on PATH (scripts/bootstrap.sh --dev installs it)")
    with FakeModelServer(responder) as fake, offline_harness("claude", fake, tmp_path) as harness:
        options = {"target": {**harness.backend_options(), "concurrency": 2}}
        config = load_config(
            world.webapp,
            world.overrides(
                **{
                    "backends.target": "claude-cli",
                    "backends.options": options,
                    "night.samples": 1,
                }
            ),
        )
        report = run_night(world.webapp, config, home=world.home)
        sessions = list((harness.home / ".claude" / "projects").rglob("*.jsonl"))
    _check_night(report)
    assert sessions == []  # the backend ran claude without session persistence


@pytest.mark.integration
def test_a_persisted_engine_session_is_never_mined(tmp_path: Path) -> None:
    """A CLI that DOES persist its session (plain `claude -p`) writes our prompt to disk; the
    marker makes the harvester drop it, while the same prompt without it is harvested."""
    if find_cli("claude") is None:
        pytest.skip("the real claude CLI is not on PATH (scripts/bootstrap.sh --dev installs it)")
    from skillopt_sleep.harvest import harvest

    project = tmp_path / "proj"
    project.mkdir()
    with FakeModelServer(lambda body: "ok") as fake, offline_harness("claude", fake, tmp_path) as h:
        for prompt in (f"{ENGINE_MARKER}\nsummarise the diff", "summarise the diff"):
            subprocess.run(
                [h.executable, "-p", prompt],
                cwd=project,
                env=dict(h.env),
                check=True,
                capture_output=True,
                timeout=120,
            )
        files = list((h.home / ".claude" / "projects").rglob("*.jsonl"))
        result = harvest(
            project, ["claude"], index=":memory:", homes={"claude": h.home / ".claude"}
        )
    assert len(files) == 2  # both sessions were persisted by the CLI
    assert [s.turns[0].text for s in result.sessions] == ["summarise the diff"]
