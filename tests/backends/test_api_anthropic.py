"""The ``anthropic`` backend end to end: the real Anthropic SDK against the loopback fake server."""

from __future__ import annotations

import socket
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from skillopt_core.backends import BackendUnavailable, CompletionRequest, Message, create_backend
from skillopt_core.backends.runtime import Roles, open_roles
from skillopt_core.structured import complete_json
from skillopt_core.testing import WRONG_SCHEMA_TEXT, FakeModelServer, Fault, Reply

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
SPEC = "anthropic:claude-sonnet-4-6"


def _key(headers: Mapping[str, str]) -> str:
    """The SDK sends the key as ``x-api-key`` or, in newer versions, as a bearer token."""
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


def _roles(fake: FakeModelServer, sleeps: list[float] | None = None, **options: Any) -> Roles:
    opts = {"base_url": fake.base_url, "api_key": "test", **options}
    sink = sleeps if sleeps is not None else []
    return open_roles(SPEC, SPEC, opts, sleep=sink.append)


@pytest.mark.parametrize("stream", ["false", "true"])
def test_messages(fake: FakeModelServer, stream: str) -> None:
    fake.script(Reply("A careful answer, streamed in pieces.", input_tokens=12, output_tokens=9))
    roles = _roles(fake, stream=stream)
    request = CompletionRequest(
        messages=(
            Message("user", "first"),
            Message("assistant", "reply"),
            Message("user", "second"),
        ),
        system="be brief",
        max_tokens=64,
    )
    completion = roles.target.complete(request)
    assert completion.text == "A careful answer, streamed in pieces."
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (12, 9)
    assert completion.cost_usd == pytest.approx((12 * 3.0 + 9 * 15.0) / 1e6)
    (logged,) = fake.generation_requests
    assert logged.api == "messages" and logged.stream == (stream == "true")
    assert logged.body["system"] == "be brief" and logged.body["max_tokens"] == 64
    assert [m["role"] for m in logged.body["messages"]] == ["user", "assistant", "user"]
    assert _key(logged.headers) == "test"


def test_schema_goes_in_the_system_text_by_default(fake: FakeModelServer) -> None:
    backend = create_backend(SPEC, {"base_url": fake.base_url, "api_key": "k"})
    fake.script(WRONG_SCHEMA_TEXT, '{"answer": 3}')
    assert complete_json(backend, CompletionRequest.of("q"), SCHEMA) == {"answer": 3}
    first = fake.generation_requests[0].body
    assert "output_config" not in first and "JSON schema" in first["system"]


def test_native_structured_output_when_asked(fake: FakeModelServer) -> None:
    backend = create_backend(
        SPEC, {"base_url": fake.base_url, "api_key": "k", "structured": "native"}
    )
    fake.script('{"answer": 5}')
    assert complete_json(backend, CompletionRequest.of("q"), SCHEMA) == {"answer": 5}
    body = fake.generation_requests[0].body
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert "system" not in body


@pytest.mark.parametrize("stream", ["false", "true"])
@pytest.mark.parametrize(
    "fault",
    [
        Fault.rate_limit(retry_after=4),
        Fault.server_error(500),
        Fault.server_error(529),
        Fault.truncated_json(),
        Fault.drop(),
        Fault.cut_stream(),
    ],
    ids=["429", "500", "529", "truncated", "drop", "cut"],
)
def test_every_fault_is_retried_then_succeeds(
    fake: FakeModelServer, stream: str, fault: Fault
) -> None:
    sleeps: list[float] = []
    fake.script(fault, "recovered")
    roles = _roles(fake, sleeps=sleeps, stream=stream)
    assert roles.target.complete(CompletionRequest.of("q")).text == "recovered"
    assert len(fake.generation_requests) == 2 and len(sleeps) == 1
    if fault.retry_after is not None:
        assert sleeps == [4.0]


def test_slow_reply_times_out_and_is_retried(fake: FakeModelServer) -> None:
    fake.script(Fault.slow(30), "in time")
    assert _roles(fake, timeout="0.5").target.complete(CompletionRequest.of("q")).text == "in time"


def test_health_check_rejected_key_names_the_fix() -> None:
    with FakeModelServer(api_key="right") as fake, pytest.raises(BackendUnavailable) as caught:
        _roles(fake)
    assert "401" in str(caught.value) and "ANTHROPIC_API_KEY" in str(caught.value)


def test_health_check_dead_server() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(BackendUnavailable, match=f"127.0.0.1:{port}"):
        open_roles(SPEC, SPEC, {"base_url": f"http://127.0.0.1:{port}", "api_key": "k"})


def test_missing_key_points_at_the_subscription_backend() -> None:
    with pytest.raises(BackendUnavailable) as caught:
        open_roles(SPEC, SPEC)
    assert "ANTHROPIC_API_KEY" in str(caught.value) and "claude-cli" in str(caught.value)


def test_environment_variables(fake: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    fake.script("env ok")
    roles = open_roles(SPEC, SPEC)
    assert roles.target.complete(CompletionRequest.of("q")).text == "env ok"
    assert _key(fake.generation_requests[0].headers) == "env-key"


def test_proxy_without_a_model_list_is_pinged() -> None:
    with FakeModelServer(["OK"], model_list=False) as fake:
        backend = create_backend(SPEC, {"base_url": fake.base_url, "api_key": "k"})
        backend.health_check()
        assert [r.api for r in fake.requests] == ["models", "messages"]


def test_mixed_roles_share_one_ledger(fake: FakeModelServer) -> None:
    options = {
        "optimizer": {"base_url": fake.openai_base_url, "api_key": "k"},
        "target": {"base_url": fake.base_url, "api_key": "k"},
    }
    roles = open_roles("openai:gpt-4o", SPEC, options)
    roles.optimizer.complete(CompletionRequest.of("q", purpose="reflect"))
    roles.target.complete(CompletionRequest.of("q", purpose="rollout"))
    by_role = roles.ledger.totals_by("role")
    assert by_role["optimizer"].calls == 1 and by_role["target"].calls == 1
    assert [r.api for r in fake.generation_requests] == ["chat", "messages"]
