"""CLI backends under the shared runtime layer: health check, accounting, retries, hand-off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_core.backends import BackendUnavailable, CompletionRequest, HandoffPending
from skillopt_core.backends.runtime import open_roles
from skillopt_core.testing.fake_cli import FakeCli


def claude_reply(text: str, *, is_error: bool = False, cost: float = 0.02) -> str:
    return json.dumps(
        {
            "type": "result",
            "is_error": is_error,
            "result": text,
            "total_cost_usd": cost,
            "usage": {"input_tokens": 30, "output_tokens": 5},
        }
    )


@pytest.fixture
def fake_claude(tmp_path: Path) -> FakeCli:
    cli = FakeCli(tmp_path / "bin", "claude")
    cli.respond(claude_reply("managed answer"))
    return cli


def test_open_roles_health_checks_and_meters_a_cli_backend(fake_claude: FakeCli) -> None:
    roles = open_roles(
        "claude-cli:sonnet", "claude-cli:sonnet", {"executable": str(fake_claude.path)}
    )
    completion = roles.target.complete(CompletionRequest.of("hello", purpose="rollout"))

    assert completion.text == "managed answer"
    assert fake_claude.calls()[0].argv == ["--version"]
    [record] = roles.ledger.records
    assert (record.backend, record.input_tokens, record.output_tokens) == ("claude-cli", 30, 5)
    assert record.cost_usd == pytest.approx(0.02)


def test_transient_cli_failures_are_retried_by_the_shared_layer(fake_claude: FakeCli) -> None:
    fake_claude.respond(claude_reply("API Error: 529 overloaded", is_error=True), exit_code=1)
    options = {"executable": str(fake_claude.path), "max_retries": 2, "retry_base_s": 0}
    roles = open_roles("claude-cli", "claude-cli", options, sleep=lambda _s: None)
    with pytest.raises(Exception, match="529 overloaded"):
        roles.target.complete(CompletionRequest.of("hello"))
    prompts = [c for c in fake_claude.calls() if c.argv != ["--version"]]
    assert len(prompts) == 3


def test_unauthenticated_cli_is_not_retried(fake_claude: FakeCli) -> None:
    fake_claude.respond(
        claude_reply("Not logged in · Please run /login", is_error=True), exit_code=1
    )
    options = {"executable": str(fake_claude.path), "max_retries": 3, "retry_base_s": 0}
    roles = open_roles("claude-cli", "claude-cli", options, sleep=lambda _s: None)
    with pytest.raises(BackendUnavailable):
        roles.target.complete(CompletionRequest.of("hello"))
    assert len([c for c in fake_claude.calls() if c.argv != ["--version"]]) == 1


def test_missing_cli_fails_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="does not exist"):
        open_roles("codex-cli", "codex-cli", {"executable": str(tmp_path / "missing" / "codex")})


def test_handoff_pending_passes_through_the_shared_layer(tmp_path: Path) -> None:
    roles = open_roles("handoff", "handoff", {"dir": str(tmp_path)})
    with pytest.raises(HandoffPending):
        roles.optimizer.complete(CompletionRequest.of("reflect on this", purpose="reflect"))
    assert (tmp_path / "pending.json").is_file()
