"""A broken or hostile harness CLI gives a clear error, never hangs, never fills memory, and
never puts a key it prints into an error or the spend journal. The CLIs are shell scripts."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from skillopt_core.backends import BackendError, CompletionRequest, create_backend
from skillopt_core.backends.budget import Ledger
from skillopt_core.backends.cli import _process
from skillopt_core.backends.managed import CallPolicy, ManagedBackend
from skillopt_core.backends.retry import RetryPolicy, TransientError
from skillopt_core.errors import UsageError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the fake CLIs are shell scripts")

KEY = "sk-ant-api03-" + "Zq8x" * 20


def script(tmp_path: Path, body: str, name: str = "claude") -> str:
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] && {{ echo 1.0; exit 0; }}\n{body}\n')
    path.chmod(0o755)
    return str(path)


def ask(executable: str, backend: str = "claude-cli", **options: object) -> str:
    made = create_backend(backend, {"executable": executable, **options})
    return made.complete(CompletionRequest.of("q")).text


def test_a_cli_printing_without_end_is_stopped_at_the_output_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_process, "MAX_OUTPUT_BYTES", 1_000_000, raising=False)
    reply = json.dumps({"type": "result", "result": "x" * 3_000_000})
    (tmp_path / "reply.json").write_text(reply)
    cli = script(tmp_path, f"cat {tmp_path / 'reply.json'}")
    with pytest.raises(BackendError, match="more than") as caught:
        ask(cli)
    assert not isinstance(caught.value, TransientError)


def test_a_detached_grandchild_holding_the_output_open_does_not_hang_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_process, "REAP_S", 0.5, raising=False)
    cli = script(tmp_path, "setsid sleep 20 &\nsleep 20")
    started = time.monotonic()
    with pytest.raises(TransientError, match="no answer within"):
        ask(cli, timeout="0.5")
    assert time.monotonic() - started < 5


def test_a_cli_that_exits_but_leaves_a_child_on_its_output_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_process, "REAP_S", 0.5, raising=False)
    reply = json.dumps({"type": "result", "result": "done"})
    cli = script(tmp_path, f"setsid sleep 20 &\necho '{reply}'")
    started = time.monotonic()
    assert ask(cli, timeout="10") == "done"
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("value", ["soon", "-1", "0", "nan"])
def test_a_bad_timeout_option_is_a_usage_error(tmp_path: Path, value: str) -> None:
    with pytest.raises(UsageError, match="timeout"):
        ask(script(tmp_path, "exit 0"), timeout=value)


def test_a_key_the_cli_prints_stays_out_of_errors_and_the_journal(tmp_path: Path) -> None:
    cli = script(tmp_path, f'echo "request failed: api key {KEY} status 500" >&2\nexit 1')
    ledger = Ledger(journal=tmp_path / "calls.jsonl")
    backend = ManagedBackend(
        create_backend("claude-cli", {"executable": cli}),
        ledger,
        role="target",
        policy=CallPolicy(retry=RetryPolicy(max_attempts=2, base_s=0)),
    )
    with pytest.raises(BackendError) as caught:
        backend.complete(CompletionRequest.of("q"))
    assert KEY not in str(caught.value)
    assert KEY not in (tmp_path / "calls.jsonl").read_text()


def test_a_key_in_a_cli_error_event_stays_out_of_the_error(tmp_path: Path) -> None:
    event = json.dumps({"type": "error", "message": f"invalid api key {KEY}"})
    cli = script(tmp_path, f"echo '{event}'\nexit 1", name="codex")
    with pytest.raises(BackendError) as caught:
        ask(cli, backend="codex-cli")
    assert KEY not in str(caught.value)
