"""The loopback fake model server, driven by the real OpenAI and Anthropic SDK clients."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest

from skillopt_core.testing import FakeModelServer, Fault, Reply, classify, request_text

MESSAGES: Any = [{"role": "user", "content": "say hello"}]
LONG = "The quick brown fox jumps over the lazy dog, several times over, in small chunks."


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as server:
        yield server


def _openai(fake: FakeModelServer, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.openai_base_url, api_key="test", max_retries=0, **kwargs)


def _anthropic(fake: FakeModelServer, **kwargs: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake.base_url, api_key="test", max_retries=0, **kwargs)


def test_chat_completions_non_streaming(fake: FakeModelServer) -> None:
    fake.script(Reply(LONG, input_tokens=7, output_tokens=11))
    reply = _openai(fake).chat.completions.create(model="gpt-x", messages=MESSAGES)
    assert reply.choices[0].message.content == LONG
    assert reply.choices[0].finish_reason == "stop"
    assert reply.model == "gpt-x"
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (7, 11)
    (logged,) = fake.generation_requests
    assert logged.api == "chat" and logged.path == "/v1/chat/completions"
    assert logged.body["messages"] == MESSAGES and not logged.stream


def test_chat_completions_streaming_with_usage(fake: FakeModelServer) -> None:
    fake.script(LONG)
    stream = _openai(fake).chat.completions.create(
        model="gpt-x", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == LONG
    assert len([c for c in chunks if c.choices]) > 3
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0
    assert fake.generation_requests[0].stream


def test_chat_stream_without_usage_option_sends_no_usage_chunk(fake: FakeModelServer) -> None:
    fake.script("short")
    chunks = list(_openai(fake).chat.completions.create(model="m", messages=MESSAGES, stream=True))
    assert all(c.choices for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_responses_non_streaming(fake: FakeModelServer) -> None:
    fake.script(LONG)
    reply = _openai(fake).responses.create(model="gpt-5", input="hi", instructions="be brief")
    assert reply.output_text == LONG
    assert reply.status == "completed"
    assert reply.usage is not None and reply.usage.output_tokens > 0
    assert fake.generation_requests[0].api == "responses"


def test_responses_streaming_events_in_order(fake: FakeModelServer) -> None:
    fake.script(LONG)
    client = _openai(fake)
    with client.responses.stream(model="gpt-5", input="hi") as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert final.output_text == LONG
    assert final.usage is not None and final.usage.total_tokens > 0
    expected = [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [k for k in kinds if k != "response.output_text.delta"] == expected
    assert kinds.count("response.output_text.delta") > 3


def test_responses_stream_has_sse_event_names_and_sequence_numbers(fake: FakeModelServer) -> None:
    fake.script("abc")
    raw = httpx.post(
        f"{fake.openai_base_url}/responses", json={"model": "m", "input": "x", "stream": True}
    )
    frames = [f for f in raw.text.split("\n\n") if f.strip()]
    names = [f.splitlines()[0].removeprefix("event: ") for f in frames]
    payloads = [json.loads(f.splitlines()[1].removeprefix("data: ")) for f in frames]
    assert names == [p["type"] for p in payloads]
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))


def test_anthropic_messages_non_streaming(fake: FakeModelServer) -> None:
    fake.script(Reply(LONG, input_tokens=5))
    message = _anthropic(fake).messages.create(model="claude-x", max_tokens=100, messages=MESSAGES)
    assert message.content[0].type == "text" and message.content[0].text == LONG
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens == 5 and message.usage.output_tokens > 0


def test_anthropic_messages_streaming(fake: FakeModelServer) -> None:
    fake.script(LONG)
    client = _anthropic(fake)
    with client.messages.stream(model="claude-x", max_tokens=100, messages=MESSAGES) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert final.content[0].type == "text" and final.content[0].text == LONG
    assert final.usage.output_tokens > 0
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "content_block_stop" in kinds and "message_delta" in kinds


def test_count_tokens_and_models_do_not_consume_the_script(fake: FakeModelServer) -> None:
    fake.script("kept")
    client = _anthropic(fake)
    counted = client.messages.count_tokens(model="claude-x", messages=MESSAGES)
    assert counted.input_tokens > 0
    assert [m.id for m in client.models.list().data] == ["fake-model"]
    assert [m.id for m in _openai(fake).models.list().data] == ["fake-model"]
    assert fake.pending == 1


def test_callable_responder_sees_the_request(fake: FakeModelServer) -> None:
    fake.responder = lambda body: "echo: " + request_text("chat", body)
    reply = _openai(fake).chat.completions.create(model="m", messages=MESSAGES)
    assert reply.choices[0].message.content == "echo: say hello"


def test_replies_can_be_given_as_a_callable() -> None:
    def answer(body: Mapping[str, Any]) -> str:
        return str(body["model"])

    with FakeModelServer(answer) as fake:
        reply = _openai(fake).chat.completions.create(model="the-model", messages=MESSAGES)
    assert reply.choices[0].message.content == "the-model"


def test_unknown_path_is_json_404_and_logged(fake: FakeModelServer) -> None:
    response = httpx.post(f"{fake.base_url}/v1/embeddings", json={"input": "x"})
    assert response.status_code == 404
    assert "No route" in response.json()["error"]["message"]
    assert [(r.api, r.path, r.served) for r in fake.requests] == [
        ("unknown", "/v1/embeddings", "not_found")
    ]


def test_query_strings_are_ignored_for_routing(fake: FakeModelServer) -> None:
    response = httpx.post(f"{fake.base_url}/v1/messages?beta=true", json={"model": "m"})
    assert response.status_code == 200
    assert fake.requests[0].query == "beta=true"


@pytest.mark.parametrize(
    ("method", "path", "api"),
    [
        ("POST", "/v1/chat/completions", "chat"),
        ("POST", "/chat/completions", "chat"),
        ("POST", "/openai/deployments/d/chat/completions", "chat"),
        ("POST", "/v1/responses", "responses"),
        ("POST", "/v1/messages", "messages"),
        ("POST", "/v1/messages/count_tokens", "count_tokens"),
        ("GET", "/v1/models", "models"),
        ("GET", "/v1/models/fake-model", "models"),
        ("GET", "/v1/chat/completions", "unknown"),
        ("POST", "/v1/embeddings", "unknown"),
    ],
)
def test_classify(method: str, path: str, api: str) -> None:
    assert classify(method, path) == api


def test_rate_limit_fault_carries_retry_after(fake: FakeModelServer) -> None:
    fake.script(Fault.rate_limit(retry_after=3))
    with pytest.raises(openai.RateLimitError) as caught:
        _openai(fake).chat.completions.create(model="m", messages=MESSAGES)
    assert caught.value.response.headers["retry-after"] == "3"


def test_anthropic_errors_use_the_anthropic_shape(fake: FakeModelServer) -> None:
    fake.script(Fault.server_error(529))
    with pytest.raises(anthropic.APIStatusError) as caught:
        _anthropic(fake).messages.create(model="m", max_tokens=5, messages=MESSAGES)
    assert caught.value.status_code == 529
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "The fake server failed with 529"},
    }


@pytest.mark.parametrize("status", [500, 503])
def test_server_error_faults(fake: FakeModelServer, status: int) -> None:
    fake.script(Fault.server_error(status), "after")
    client = _openai(fake)
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert (
        client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        == "after"
    )


def test_truncated_json_body(fake: FakeModelServer) -> None:
    fake.script(Fault.truncated_json())
    response = httpx.post(f"{fake.openai_base_url}/chat/completions", json={"model": "m"})
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()


def test_truncated_json_in_a_stream(fake: FakeModelServer) -> None:
    fake.script(Fault.truncated_json())
    with pytest.raises(json.JSONDecodeError):
        list(_openai(fake).chat.completions.create(model="m", messages=MESSAGES, stream=True))


def test_connection_drop(fake: FakeModelServer) -> None:
    fake.script(Fault.drop(), "after")
    client = _openai(fake)
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert (
        client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        == "after"
    )


def test_stream_cut_mid_way(fake: FakeModelServer) -> None:
    fake.script(Fault.cut_stream())
    client = _anthropic(fake)
    with pytest.raises((anthropic.APIConnectionError, httpx2.TransportError)):  # noqa: SIM117
        with client.messages.stream(model="m", max_tokens=5, messages=MESSAGES) as stream:
            stream.get_final_message()


def test_slow_fault_times_the_client_out_then_the_script_continues(fake: FakeModelServer) -> None:
    fake.script(Fault.slow(30), "after")
    client = _openai(fake, timeout=0.3)
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert (
        client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
        == "after"
    )


def test_api_key_is_enforced_when_set() -> None:
    with FakeModelServer(api_key="right") as fake:
        with pytest.raises(openai.AuthenticationError):
            _openai(fake).models.list()
        ok = openai.OpenAI(base_url=fake.openai_base_url, api_key="right", max_retries=0)
        assert ok.models.list().data
        with pytest.raises(anthropic.AuthenticationError):
            _anthropic(fake).messages.create(model="m", max_tokens=5, messages=MESSAGES)
        good = anthropic.Anthropic(base_url=fake.base_url, api_key="right", max_retries=0)
        assert good.messages.create(model="m", max_tokens=5, messages=MESSAGES).content


def test_stop_closes_kept_alive_connections() -> None:
    fake = FakeModelServer().start()
    client = _openai(fake)
    client.models.list()
    fake.stop()
    with pytest.raises(openai.APIConnectionError):
        client.models.list()


def test_concurrent_requests_are_all_served(fake: FakeModelServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fake.script(*[f"r{i}" for i in range(16)])
    client = _openai(fake)

    def call(_: int) -> str:
        reply = client.chat.completions.create(model="m", messages=MESSAGES)
        return reply.choices[0].message.content or ""

    with ThreadPoolExecutor(8) as pool:
        answers = sorted(pool.map(call, range(16)))
    assert answers == sorted(f"r{i}" for i in range(16))
