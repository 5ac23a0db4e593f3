"""The CLI backends driving the real harness CLIs, fully offline against the loopback fake model.

Each CLI runs in a temporary HOME (see :mod:`skillopt_core.testing.harness`); a test skips with
the reason when its CLI is not on PATH (``scripts/bootstrap.sh --dev`` installs all three).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_core.backends import (
    BackendUnavailable,
    CompletionRequest,
    create_backend,
)
from skillopt_core.testing import FakeModelServer, request_text
from skillopt_core.testing.harness import (
    HARNESSES,
    HarnessName,
    claude_env,
    find_cli,
    offline_harness,
)

pytestmark = pytest.mark.integration

REPLY = "PONG from the loopback fake"
MARKER = "marker-7f3a9c"
_PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "copilot": "@github/copilot",
}


def require(name: HarnessName) -> None:
    if find_cli(name) is None:
        pytest.skip(
            f"the real {name} CLI is not on PATH (npm install -g {_PACKAGES[name]}, "
            "or scripts/bootstrap.sh --dev for .tools/)"
        )


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer(lambda body: REPLY) as server:
        yield server


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def prompts_seen(fake: FakeModelServer) -> list[str]:
    return [request_text(r.api, r.body) for r in fake.generation_requests]


@pytest.mark.parametrize("name", HARNESSES)
def test_backend_completes_through_the_real_cli(
    name: HarnessName, fake: FakeModelServer, tmp_path: Path
) -> None:
    require(name)
    with offline_harness(name, fake, tmp_path) as harness:
        backend = create_backend(f"{name}-cli", harness.backend_options())
        backend.health_check()
        completion = backend.complete(CompletionRequest.of(f"Reply with PONG. {MARKER}"))

    assert completion.text == REPLY
    assert completion.usage.input_tokens > 0
    assert completion.usage.output_tokens > 0
    assert any(MARKER in text for text in prompts_seen(fake))
    if name in ("claude", "copilot"):
        # Tools withheld: the model is offered none (Codex keeps its read-only sandboxed tools).
        assert all(not r.body.get("tools") for r in fake.generation_requests)


@pytest.mark.parametrize("name", HARNESSES)
def test_backend_call_leaves_no_session_in_the_harness_history(
    name: HarnessName, fake: FakeModelServer, tmp_path: Path
) -> None:
    require(name)
    with offline_harness(name, fake, tmp_path) as harness:
        harness.state_dir.mkdir(parents=True, exist_ok=True)
        before = files_under(harness.state_dir)
        backend = create_backend(f"{name}-cli", harness.backend_options())
        backend.complete(CompletionRequest.of(f"Reply with PONG. {MARKER}"))

        assert harness.session_files() == []
        new_files = files_under(harness.state_dir) - before
        assert not [
            p for p in new_files if MARKER in p.read_text(encoding="utf-8", errors="replace")
        ]

        # Control: an ordinary run of the same CLI in the same HOME does write a transcript,
        # so the emptiness above is the backend's doing, not a blind spot of the check.
        direct = harness.ask(f"Reply with PONG. {MARKER}", cwd=harness.project("webapp"))
        assert direct.returncode == 0, direct.stderr
        assert harness.session_files() != []


def test_claude_subscription_path_runs_without_bare(fake: FakeModelServer, tmp_path: Path) -> None:
    """No ANTHROPIC_API_KEY (a bearer token stands in for a subscription login): no --bare."""
    require("claude")
    with offline_harness("claude", fake, tmp_path) as harness:
        env = claude_env(harness.home, fake, use_api_key=False)
        assert "ANTHROPIC_API_KEY" not in env
        backend = create_backend("claude-cli", {**harness.backend_options(), "env": env})
        completion = backend.complete(CompletionRequest.of(f"Reply with PONG. {MARKER}"))
        assert completion.text == REPLY
        assert harness.session_files() == []
    [request] = [r for r in fake.generation_requests if MARKER in request_text(r.api, r.body)]
    assert request.headers.get("authorization", "").startswith("Bearer ")


def test_health_check_with_a_prompt_through_the_real_cli(
    fake: FakeModelServer, tmp_path: Path
) -> None:
    require("codex")
    with offline_harness("codex", fake, tmp_path) as harness:
        options = {**harness.backend_options(), "health_prompt": True}
        create_backend("codex-cli", options).health_check()
    assert len(fake.generation_requests) == 1


@pytest.mark.parametrize("name", HARNESSES)
def test_rejected_credentials_make_the_backend_unavailable(
    name: HarnessName, tmp_path: Path
) -> None:
    require(name)
    with FakeModelServer(lambda body: REPLY, api_key="a-different-key") as fake:
        overrides = {"CLAUDE_CODE_MAX_RETRIES": "0"} if name == "claude" else {}
        with offline_harness(name, fake, tmp_path, env_overrides=overrides) as harness:
            backend = create_backend(f"{name}-cli", harness.backend_options())
            with pytest.raises(BackendUnavailable):
                backend.complete(CompletionRequest.of("Reply with PONG."))
