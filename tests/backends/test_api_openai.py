"""The ``openai`` backend end to end: the real OpenAI SDK against the loopback fake server."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from skillopt_core.backends import (
    BackendError,
    BackendUnavailable,
    CompletionRequest,
    create_backend,
)
from skillopt_core.backends.retry import RetriesExhausted
from skillopt_core.backends.runtime import Budget, Roles, open_roles
from skillopt_core.markers import ENGINE_MARKER
from skillopt_core.structured import StructuredReplyError, complete_json
from skillopt_core.testing import WRONG_SCHEMA_TEXT, FakeModelServer, Fault, Reply

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer(models=("gpt-4o", "gpt-5-pro")) as server:
        yield server


def _roles(
    fake: FakeModelServer,
    spec: str = "openai:gpt-4o",
    sleeps: list[float] | None = None,
    budget: Budget | None = None,
    **options: Any,
) -> Roles:
    opts = {"base_url": fake.openai_base_url, "api_key": "test", **options}
    sink = sleeps if sleeps is not None else []
    return open_roles(spec, spec, opts, budget, sleep=sink.append)


@pytest.mark.parametrize("stream", ["false", "true"])
def test_chat_completion(fake: FakeModelServer, stream: str) -> None:
    fake.script(Reply("The answer is 42.", output_tokens=6))
    roles = _roles(fake, stream=stream)
    completion = roles.target.complete(
        CompletionRequest.of("question?", system="be brief", max_tokens=77)
    )
    assert completion.text == "The answer is 42."
    assert completion.usage.output_tokens == 6 and completion.usage.input_tokens > 0
    assert completion.model == "gpt-4o" and completion.cost_usd > 0
    (logged,) = fake.generation_requests
    assert logged.api == "chat" and logged.stream == (stream == "true")
    assert logged.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": f"{ENGINE_MARKER}\nquestion?"},
    ]
    assert logged.body["max_tokens"] == 77 and logged.body["temperature"] == 0.0
    assert roles.ledger.totals.output_tokens == 6


@pytest.mark.parametrize("stream", ["false", "true"])
def test_responses_api_when_configured(fake: FakeModelServer, stream: str) -> None:
    fake.script("from responses")
    roles = _roles(fake, api="responses", stream=stream)
    completion = roles.target.complete(CompletionRequest.of("q", system="sys"))
    assert completion.text == "from responses" and completion.usage.output_tokens > 0
    (logged,) = fake.generation_requests
    assert logged.api == "responses" and logged.body["instructions"] == "sys"
    assert logged.body["input"] == [{"role": "user", "content": f"{ENGINE_MARKER}\nq"}]


def test_responses_only_model_family_uses_the_responses_api(fake: FakeModelServer) -> None:
    fake.script("pro answer")
    roles = _roles(fake, spec="openai:gpt-5-pro")
    assert roles.target.complete(CompletionRequest.of("q")).text == "pro answer"
    (logged,) = fake.generation_requests
    assert logged.api == "responses" and "temperature" not in logged.body


def test_native_structured_output_on_official_endpoints(fake: FakeModelServer) -> None:
    backend = create_backend(
        "openai:gpt-4o", {"base_url": fake.openai_base_url, "api_key": "k", "structured": "native"}
    )
    fake.script('{"answer": 42}')
    assert complete_json(backend, CompletionRequest.of("q"), SCHEMA) == {"answer": 42}
    body = fake.generation_requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_compatible_servers_get_the_schema_as_an_instruction(fake: FakeModelServer) -> None:
    backend = create_backend("openai:llama3", {"base_url": fake.openai_base_url})
    fake.script(WRONG_SCHEMA_TEXT, '```json\n{"answer": 7,}\n```')
    assert complete_json(backend, CompletionRequest.of("q"), SCHEMA) == {"answer": 7}
    first, second = fake.generation_requests
    assert "response_format" not in first.body
    assert "JSON schema" in first.body["messages"][0]["content"]
    assert len(second.body["messages"]) == 4  # the re-ask shows the bad reply and the error


def test_structured_reply_fails_clearly_after_one_reask(fake: FakeModelServer) -> None:
    backend = create_backend("openai:llama3", {"base_url": fake.openai_base_url})
    fake.script(WRONG_SCHEMA_TEXT, WRONG_SCHEMA_TEXT)
    with pytest.raises(StructuredReplyError, match="answer"):
        complete_json(backend, CompletionRequest.of("q"), SCHEMA)


@pytest.mark.parametrize("stream", ["false", "true"])
@pytest.mark.parametrize(
    "fault",
    [
        Fault.rate_limit(retry_after=2),
        Fault.server_error(500),
        Fault.server_error(503),
        Fault.truncated_json(),
        Fault.drop(),
        Fault.cut_stream(),
    ],
    ids=["429", "500", "503", "truncated", "drop", "cut"],
)
def test_every_fault_is_retried_then_succeeds(
    fake: FakeModelServer, stream: str, fault: Fault
) -> None:
    sleeps: list[float] = []
    fake.script(fault, "recovered")
    roles = _roles(fake, sleeps=sleeps, stream=stream)
    assert roles.target.complete(CompletionRequest.of("q")).text == "recovered"
    assert len(fake.generation_requests) == 2
    assert len(sleeps) == 1
    if fault.retry_after is not None:
        assert sleeps == [2.0]
    (record,) = roles.ledger.records
    assert record.ok and record.attempts == 2


def test_slow_reply_times_out_and_is_retried(fake: FakeModelServer) -> None:
    fake.script(Fault.slow(30), "in time")
    roles = _roles(fake, timeout="0.5")
    assert roles.target.complete(CompletionRequest.of("q")).text == "in time"


def test_persistent_failure_ends_with_a_clear_error(fake: FakeModelServer) -> None:
    fake.script(*[Fault.server_error(503)] * 3)
    roles = _roles(fake, max_retries="2")
    with pytest.raises(RetriesExhausted, match=r"gave up after 3 attempts.*503"):
        roles.target.complete(CompletionRequest.of("q"))
    assert len(fake.generation_requests) == 3


def test_bad_request_is_not_retried(fake: FakeModelServer) -> None:
    fake.script(Fault.http(400, message="bad parameter"))
    roles = _roles(fake)
    with pytest.raises(BackendError, match=r"HTTP 400.*bad parameter"):
        roles.target.complete(CompletionRequest.of("q"))
    assert len(fake.generation_requests) == 1


def test_budget_is_checked_before_the_request_leaves(fake: FakeModelServer) -> None:
    from skillopt_core.backends import BudgetExceeded

    roles = _roles(fake, budget=Budget(max_tokens=1_000))
    roles.target.complete(CompletionRequest.of("q", max_tokens=400))
    with pytest.raises(BudgetExceeded):
        roles.target.complete(CompletionRequest.of("q", max_tokens=995))
    assert len(fake.generation_requests) == 1
    assert roles.ledger.totals.total_tokens <= 1_000


def test_health_check_rejected_key_names_the_fix() -> None:
    with FakeModelServer(api_key="the-right-key") as fake:
        with pytest.raises(BackendUnavailable) as caught:
            _roles(fake)
        assert "401" in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)
        assert fake.requests[0].api == "models"
        assert not fake.generation_requests


def test_health_check_dead_server_names_the_address() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(BackendUnavailable) as caught:
        open_roles("openai:gpt-4o", "openai:gpt-4o", {"base_url": url, "api_key": "k"})
    assert url in str(caught.value) and "running" in str(caught.value)


def test_missing_key_for_the_official_endpoint_names_the_fix() -> None:
    with pytest.raises(BackendUnavailable, match="OPENAI_API_KEY"):
        open_roles("openai:gpt-4o", "openai:gpt-4o")


def test_missing_model_names_the_fix() -> None:
    with pytest.raises(BackendUnavailable, match="openai:MODEL"):
        create_backend("openai", {})


def test_environment_variables_work_as_users_expect(
    fake: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    fake.script("env ok")
    roles = open_roles("openai:gpt-4o", "openai:gpt-4o")
    assert roles.target.complete(CompletionRequest.of("q")).text == "env ok"
    assert fake.generation_requests[0].headers["authorization"] == "Bearer from-env"


def test_server_without_a_model_list_is_pinged() -> None:
    with FakeModelServer(["OK", Fault.http(401)], model_list=False) as fake:
        backend = create_backend("openai:m", {"base_url": fake.openai_base_url, "api_key": "k"})
        backend.health_check()
        assert [r.api for r in fake.requests] == ["models", "chat"]
        with pytest.raises(BackendUnavailable, match="401"):
            backend.health_check()


def test_azure_openai_with_a_key(fake: FakeModelServer) -> None:
    fake.script("from azure")
    options = {
        "azure_endpoint": fake.base_url,
        "api_key": "azure-key",
        "deployment": "dep1",
        "api_version": "2024-10-21",
    }
    roles = open_roles("azure-openai:gpt-4o", "azure-openai:gpt-4o", options)
    assert roles.target.complete(CompletionRequest.of("q")).text == "from azure"
    (logged,) = fake.generation_requests
    assert logged.path == "/openai/deployments/dep1/chat/completions"
    assert logged.query == "api-version=2024-10-21"
    assert logged.headers["api-key"] == "azure-key"


def test_azure_without_endpoint_names_the_fix() -> None:
    with pytest.raises(BackendUnavailable, match="AZURE_OPENAI_ENDPOINT"):
        create_backend("azure-openai:gpt-4o", {})


def test_concurrent_calls_share_one_client(fake: FakeModelServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    roles = _roles(fake, concurrency="4")
    with ThreadPoolExecutor(8) as pool:
        texts = list(
            pool.map(lambda i: roles.target.complete(CompletionRequest.of(f"q{i}")).text, range(16))
        )
    assert texts == ["ok"] * 16
    assert roles.ledger.totals.calls == 16
