"""Argv contract of the harness-CLI backends, checked against recording fake executables."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from skillopt_core.backends import (
    BACKENDS,
    BackendError,
    BackendUnavailable,
    CompletionRequest,
    Message,
    create_backend,
)
from skillopt_core.backends.cli import _base
from skillopt_core.backends.cli.claude import ClaudeCliBackend
from skillopt_core.backends.cli.copilot import NO_TOOLS
from skillopt_core.backends.retry import TransientError
from skillopt_core.testing.fake_cli import FakeCli

PROMPT = "Summarise the failing test in one line."


def claude_result(text: str = "It fails on a None check.", **extra: object) -> str:
    record: dict[str, object] = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": text,
        "total_cost_usd": 0.0125,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 5,
            "cache_read_input_tokens": 100,
            "output_tokens": 7,
        },
        "modelUsage": {"claude-sonnet-9": {"inputTokens": 115, "outputTokens": 7}},
    }
    record.update(extra)
    return json.dumps(record)


def codex_events(*events: dict[str, object]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


@pytest.fixture
def fake_claude(tmp_path: Path) -> FakeCli:
    cli = FakeCli(tmp_path / "bin", "claude")
    cli.respond(claude_result())
    return cli


@pytest.fixture
def fake_codex(tmp_path: Path) -> FakeCli:
    cli = FakeCli(tmp_path / "bin", "codex")
    cli.respond(
        codex_events(
            {"type": "thread.started", "thread_id": "t1"},
            {"type": "item.completed", "item": {"type": "agent_message", "text": "from events"}},
            {"type": "turn.completed", "usage": {"input_tokens": 40, "output_tokens": 6}},
        ),
        files={"-o": "from the -o file\n"},
    )
    return cli


def copilot_events(*contents: str) -> str:
    lines = [{"type": "user.message", "data": {"content": PROMPT}}]
    lines += [
        {
            "type": "assistant.message",
            "data": {"content": c, "model": "gpt-fake", "toolRequests": []},
        }
        for c in contents
    ]
    lines.append({"type": "result", "exitCode": 0})
    return "".join(json.dumps(e) + "\n" for e in lines)


COPILOT_USAGE = json.dumps(
    {"modelMetrics": {"gpt-fake": {"usage": {"inputTokens": 321, "outputTokens": 9}}}}
)


@pytest.fixture
def fake_copilot(tmp_path: Path) -> FakeCli:
    cli = FakeCli(tmp_path / "bin", "copilot")
    cli.respond(
        copilot_events("thinking out loud", "final answer"),
        files={"--usage-output-file": COPILOT_USAGE},
        list_dirs_of_env=("COPILOT_HOME",),
    )
    return cli


def test_all_cli_backends_and_handoff_are_registered() -> None:
    create_backend("claude-cli")  # loads the built-in backends
    for name in ("claude-cli", "codex-cli", "copilot-cli", "handoff"):
        assert name in BACKENDS


# --- claude -------------------------------------------------------------------------------------


def test_claude_prompt_on_stdin_and_exact_flags(fake_claude: FakeCli) -> None:
    backend = create_backend("claude-cli:sonnet", {"executable": str(fake_claude.path)})
    completion = backend.complete(CompletionRequest.of(PROMPT))

    call = fake_claude.last_call()
    assert call.stdin == PROMPT
    assert PROMPT not in " ".join(call.argv)
    assert call.argv[:3] == ["-p", "--output-format", "json"]
    assert "--no-session-persistence" in call.argv
    assert call.value_after("--tools") == ""
    assert "--disable-slash-commands" in call.argv
    assert "--strict-mcp-config" in call.argv
    assert call.value_after("--model") == "sonnet"
    assert "--bare" not in call.argv
    assert call.cwd_entries == []
    assert not Path(call.cwd).exists()

    assert completion.text == "It fails on a None check."
    assert completion.usage.input_tokens == 115
    assert completion.usage.output_tokens == 7
    assert completion.cost_usd == pytest.approx(0.0125)
    assert completion.model == "claude-sonnet-9"


def test_claude_without_model_passes_no_model_flag(fake_claude: FakeCli) -> None:
    create_backend("claude-cli", {"executable": str(fake_claude.path)}).complete(
        CompletionRequest.of(PROMPT)
    )
    assert "--model" not in fake_claude.last_call().argv


def test_claude_uses_bare_only_with_an_api_key(
    fake_claude: FakeCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {"executable": str(fake_claude.path)}
    create_backend("claude-cli", {**options, "api_key": "sk-ant-x"}).complete(
        CompletionRequest.of(PROMPT)
    )
    call = fake_claude.last_call()
    assert "--bare" in call.argv
    assert call.env["ANTHROPIC_API_KEY"] == "sk-ant-x"

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    create_backend("claude-cli", options).complete(CompletionRequest.of(PROMPT))
    assert "--bare" in fake_claude.last_call().argv

    create_backend("claude-cli", {**options, "bare": False}).complete(CompletionRequest.of(PROMPT))
    assert "--bare" not in fake_claude.last_call().argv

    create_backend("claude-cli", {**options, "bare": "false"}).complete(
        CompletionRequest.of(PROMPT)
    )
    assert "--bare" not in fake_claude.last_call().argv


def test_text_options_from_the_command_line_are_parsed(fake_claude: FakeCli) -> None:
    options = {"executable": str(fake_claude.path), "health_prompt": "false", "timeout": "30"}
    create_backend("claude-cli", options).health_check()
    assert [c.argv for c in fake_claude.calls()] == [["--version"]]
    with pytest.raises(ValueError, match="boolean"):
        create_backend("claude-cli", {**options, "health_prompt": "maybe"})


def test_claude_subscription_login_never_gets_bare(fake_claude: FakeCli) -> None:
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path), "bare": True})
    backend.complete(CompletionRequest.of(PROMPT))
    assert "--bare" not in fake_claude.last_call().argv


def test_claude_not_logged_in_is_unavailable_with_the_fix(fake_claude: FakeCli) -> None:
    fake_claude.respond(
        claude_result("Not logged in · Please run /login", is_error=True), exit_code=1
    )
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path)})
    with pytest.raises(BackendUnavailable) as err:
        backend.complete(CompletionRequest.of(PROMPT))
    assert "log in" in err.value.hint


def test_claude_overload_is_transient_so_the_shared_layer_retries(fake_claude: FakeCli) -> None:
    fake_claude.respond(
        claude_result("API Error: 529 overloaded", is_error=True, subtype="error_during_execution"),
        exit_code=1,
    )
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path)})
    with pytest.raises(TransientError, match="529 overloaded"):
        backend.complete(CompletionRequest.of(PROMPT))


def test_claude_permanent_error_is_not_transient(fake_claude: FakeCli) -> None:
    fake_claude.respond(
        claude_result("API Error: 404 model: claude-nope not found", is_error=True), exit_code=1
    )
    backend = create_backend("claude-cli:claude-nope", {"executable": str(fake_claude.path)})
    with pytest.raises(BackendError) as err:
        backend.complete(CompletionRequest.of(PROMPT))
    assert not isinstance(err.value, (TransientError, BackendUnavailable))
    assert "claude-nope not found" in str(err.value)


def test_claude_garbage_output_error_carries_stderr(fake_claude: FakeCli) -> None:
    fake_claude.respond("not json", stderr="panic: something broke\n", exit_code=2)
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path)})
    with pytest.raises(BackendError, match="something broke"):
        backend.complete(CompletionRequest.of(PROMPT))


def test_claude_empty_result_is_an_error(fake_claude: FakeCli) -> None:
    fake_claude.respond(claude_result(""))
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path)})
    with pytest.raises(BackendError, match="empty result"):
        backend.complete(CompletionRequest.of(PROMPT))


# --- codex --------------------------------------------------------------------------------------


def test_codex_prompt_on_stdin_and_exact_flags(fake_codex: FakeCli) -> None:
    backend = create_backend("codex-cli:gpt-9-codex", {"executable": str(fake_codex.path)})
    completion = backend.complete(CompletionRequest.of(PROMPT))

    call = fake_codex.last_call()
    assert call.stdin == PROMPT
    assert call.argv[0] == "exec"
    assert call.argv[-1] == "-"
    assert "--ephemeral" in call.argv
    assert call.value_after("--sandbox") == "read-only"
    assert "--skip-git-repo-check" in call.argv
    assert call.value_after("--color") == "never"
    assert "--json" in call.argv
    assert call.value_after("-m") == "gpt-9-codex"
    assert not Path(call.value_after("-o")).is_relative_to(call.cwd)
    assert call.cwd_entries == []

    assert completion.text == "from the -o file"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (40, 6)


def test_codex_falls_back_to_the_last_agent_message(fake_codex: FakeCli) -> None:
    fake_codex.respond(
        codex_events(
            {"type": "item.completed", "item": {"type": "agent_message", "text": "from events"}}
        )
    )
    completion = create_backend("codex-cli", {"executable": str(fake_codex.path)}).complete(
        CompletionRequest.of(PROMPT)
    )
    assert completion.text == "from events"
    assert "-m" not in fake_codex.last_call().argv


def test_codex_unauthorized_is_unavailable(fake_codex: FakeCli) -> None:
    fake_codex.respond(
        codex_events(
            {"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}}
        ),
        exit_code=1,
    )
    with pytest.raises(BackendUnavailable) as err:
        create_backend("codex-cli", {"executable": str(fake_codex.path)}).complete(
            CompletionRequest.of(PROMPT)
        )
    assert "codex login" in err.value.hint


def test_codex_failure_reports_the_error_event(fake_codex: FakeCli) -> None:
    fake_codex.respond(
        codex_events({"type": "error", "message": "stream disconnected before completion"}),
        stderr="retrying...\n",
        exit_code=1,
    )
    with pytest.raises(TransientError, match="stream disconnected"):
        create_backend("codex-cli", {"executable": str(fake_codex.path)}).complete(
            CompletionRequest.of(PROMPT)
        )


# --- copilot ------------------------------------------------------------------------------------


def test_copilot_isolated_home_no_tools_prompt_on_stdin(
    fake_copilot: FakeCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = tmp_path / "user-copilot"
    user_home.mkdir()
    (user_home / "config.json").write_text('{"logged_in_users": []}', encoding="utf-8")
    (user_home / "mcp-config.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    monkeypatch.setenv("COPILOT_HOME", str(user_home))
    monkeypatch.setenv("COPILOT_GITHUB_TOKEN", "gho_passthrough")

    backend = create_backend("copilot-cli:gpt-fake", {"executable": str(fake_copilot.path)})
    completion = backend.complete(CompletionRequest.of(PROMPT))

    call = fake_copilot.last_call()
    assert call.stdin == PROMPT
    assert "-p" not in call.argv and PROMPT not in " ".join(call.argv)
    assert call.value_after("--output-format") == "json"
    assert f"--available-tools={NO_TOOLS}" in call.argv
    assert "--no-custom-instructions" in call.argv
    assert "--disable-builtin-mcps" in call.argv
    assert "--allow-all-tools" not in call.argv
    assert call.value_after("--model") == "gpt-fake"
    assert call.cwd_entries == []

    isolated = call.env["COPILOT_HOME"]
    assert isolated != str(user_home)
    assert call.dir_entries["COPILOT_HOME"] == ["config.json"]
    assert not Path(isolated).exists()
    assert call.env["COPILOT_GITHUB_TOKEN"] == "gho_passthrough"
    assert sorted(p.name for p in user_home.iterdir()) == ["config.json", "mcp-config.json"]

    assert completion.text == "final answer"
    assert completion.model == "gpt-fake"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (321, 9)


def test_copilot_copy_login_can_be_turned_off(
    fake_copilot: FakeCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = tmp_path / "user-copilot"
    user_home.mkdir()
    (user_home / "config.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("COPILOT_HOME", str(user_home))
    options = {"executable": str(fake_copilot.path), "copy_login": False}
    create_backend("copilot-cli", options).complete(CompletionRequest.of(PROMPT))
    assert fake_copilot.last_call().dir_entries["COPILOT_HOME"] == []


def test_copilot_session_error_not_logged_in_is_unavailable(fake_copilot: FakeCli) -> None:
    error = {"type": "session.error", "data": {"message": "No authentication information found."}}
    fake_copilot.respond(json.dumps(error) + "\n", exit_code=1)
    with pytest.raises(BackendUnavailable) as err:
        create_backend("copilot-cli", {"executable": str(fake_copilot.path)}).complete(
            CompletionRequest.of(PROMPT)
        )
    assert "copilot login" in err.value.hint


def test_copilot_without_assistant_message_is_an_error(fake_copilot: FakeCli) -> None:
    error = {"type": "session.error", "data": {"message": "Could not connect to provider"}}
    fake_copilot.respond(json.dumps(error) + "\n", exit_code=1)
    with pytest.raises(BackendError, match="Could not connect"):
        create_backend("copilot-cli", {"executable": str(fake_copilot.path)}).complete(
            CompletionRequest.of(PROMPT)
        )


# --- shared behaviour ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "package"),
    [
        ("claude-cli", "@anthropic-ai/claude-code"),
        ("codex-cli", "@openai/codex"),
        ("copilot-cli", "@github/copilot"),
    ],
)
def test_missing_executable_is_unavailable_with_install_hint(
    name: str, package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    backend = create_backend(name)
    with pytest.raises(BackendUnavailable) as err:
        backend.health_check()
    assert f"npm install -g {package}" in err.value.hint
    with pytest.raises(BackendUnavailable):
        backend.complete(CompletionRequest.of(PROMPT))


def test_explicit_executable_that_does_not_exist_is_unavailable(tmp_path: Path) -> None:
    backend = create_backend("claude-cli", {"executable": str(tmp_path / "nope" / "claude")})
    with pytest.raises(BackendUnavailable, match="configured executable"):
        backend.health_check()


def test_executable_found_on_path(fake_claude: FakeCli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(fake_claude.directory))
    create_backend("claude-cli").complete(CompletionRequest.of(PROMPT))
    assert fake_claude.last_call().stdin == PROMPT


def test_health_check_runs_version_only_by_default(fake_claude: FakeCli) -> None:
    create_backend("claude-cli", {"executable": str(fake_claude.path)}).health_check()
    assert [c.argv for c in fake_claude.calls()] == [["--version"]]


def test_health_check_with_prompt_sends_one_tiny_prompt(fake_claude: FakeCli) -> None:
    options = {"executable": str(fake_claude.path), "health_prompt": True}
    create_backend("claude-cli", options).health_check()
    calls = fake_claude.calls()
    assert len(calls) == 2
    assert calls[0].argv == ["--version"]
    assert "OK" in calls[1].stdin


def test_health_check_prompt_failure_is_unavailable(fake_claude: FakeCli) -> None:
    fake_claude.respond(claude_result("", is_error=True), exit_code=1)
    options = {"executable": str(fake_claude.path), "health_prompt": True}
    with pytest.raises(BackendUnavailable, match="health-check prompt failed"):
        create_backend("claude-cli", options).health_check()


def test_broken_version_is_unavailable(fake_codex: FakeCli) -> None:
    fake_codex.respond(version="", version_exit_code=1)
    with pytest.raises(BackendUnavailable, match="--version"):
        create_backend("codex-cli", {"executable": str(fake_codex.path)}).health_check()


def test_timeout_is_a_backend_error(fake_claude: FakeCli) -> None:
    fake_claude.respond(claude_result(), sleep_s=30)
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path), "timeout": 0.5})
    with pytest.raises(TransientError, match="no answer within"):
        backend.complete(CompletionRequest.of(PROMPT))


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if status.exists():
        return "State:\tZ" not in status.read_text(encoding="utf-8")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_timeout_kills_the_whole_process_tree(fake_claude: FakeCli) -> None:
    fake_claude.respond(claude_result(), sleep_s=60, spawn_child=True)
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path), "timeout": 1})
    with pytest.raises(TransientError):
        backend.complete(CompletionRequest.of(PROMPT))
    child = fake_claude.last_call().child_pid
    assert child is not None
    for _ in range(200):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def test_extra_args_and_env_options_reach_the_cli(fake_codex: FakeCli) -> None:
    options = {
        "executable": str(fake_codex.path),
        "extra_args": ["-c", "model_reasoning_effort=low"],
        "env": {"CODEX_HOME": "/somewhere/else"},
    }
    create_backend("codex-cli", options).complete(CompletionRequest.of(PROMPT))
    call = fake_codex.last_call()
    assert call.value_after("-c") == "model_reasoning_effort=low"
    assert call.argv[-1] == "-"
    assert call.env["CODEX_HOME"] == "/somewhere/else"


def test_every_outbound_prompt_passes_redaction(
    fake_claude: FakeCli, fake_codex: FakeCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_base, "redact", lambda text: text.replace("hunter2", "[REDACTED]"))
    request = CompletionRequest.of("the password is hunter2")
    for name, cli in (("claude-cli", fake_claude), ("codex-cli", fake_codex)):
        create_backend(name, {"executable": str(cli.path)}).complete(request)
        assert cli.last_call().stdin == "the password is [REDACTED]"


def test_system_conversation_and_schema_are_rendered_into_stdin(fake_claude: FakeCli) -> None:
    request = CompletionRequest(
        messages=(
            Message("user", "first question"),
            Message("assistant", "first answer"),
            Message("user", "second question"),
        ),
        system="You are a strict grader.",
        json_schema={"type": "object", "properties": {"score": {"type": "number"}}},
    )
    backend = create_backend("claude-cli", {"executable": str(fake_claude.path)})
    assert isinstance(backend, ClaudeCliBackend)
    backend.complete(request)
    stdin = fake_claude.last_call().stdin
    assert stdin.startswith("You are a strict grader.")
    assert stdin.index("User: first question") < stdin.index("Assistant: first answer")
    assert stdin.index("Assistant: first answer") < stdin.index("User: second question")
    assert '"score"' in stdin and "JSON" in stdin
