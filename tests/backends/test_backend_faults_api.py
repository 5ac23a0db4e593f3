"""A dead or hostile HTTP backend gives a clear error, never hangs, never leaks the key.

The real OpenAI and Anthropic SDKs talk to a tiny loopback server (:mod:`tests.backends._raw`),
which answers with whatever bytes a test hands it (an HTML page, JSON missing fields, a body that
drips in).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import pytest

from skillopt_core.backends import (
    BackendError,
    BackendUnavailable,
    CompletionRequest,
)
from skillopt_core.backends.retry import RetriesExhausted, TransientError
from tests.backends._raw import CHAT_OK, KEY, SPECS, RawServer, ask, http, roles

HTML = "<html><head><title>Hotel Wi-Fi</title></head><body>Please log in</body></html>"


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", ["false", "true"])
def test_html_page_from_a_proxy_is_named_as_such(
    serve: Callable[..., RawServer], spec: str, stream: str
) -> None:
    server = serve(http(200, HTML, "text/html"))
    with pytest.raises(BackendError) as caught:
        ask(roles(server, spec, stream=stream, max_retries="1"))
    text = str(caught.value)
    assert "proxy" in text and "Hotel Wi-Fi" in text, text
    assert "AttributeError" not in text and "AssertionError" not in text


@pytest.mark.parametrize(
    ("spec", "body"),
    [
        ("openai:gpt-4o", "[]"),
        ("openai:gpt-4o", '{"choices": [{"message": null}]}'),
        ("anthropic:claude-x", "{}"),
        ("anthropic:claude-x", '{"content": null}'),
    ],
    ids=["oa-list", "oa-null-message", "an-empty", "an-null-content"],
)
def test_json_missing_fields_is_a_clear_backend_error(
    serve: Callable[..., RawServer], spec: str, body: str
) -> None:
    server = serve(http(200, body))
    with pytest.raises(BackendError, match="not a valid") as caught:
        ask(roles(server, spec, max_retries="1"))
    assert server.hits == 2  # retried once: a proxy hiccup may pass
    assert "fix:" in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "body", "text"),
    [
        ("openai:gpt-4o", '{"choices": [{"message": {"content": ""}}]}', ""),
        ("anthropic:claude-x", '{"content": [{"type": "text", "text": "hi"}]}', "hi"),
        ("anthropic:claude-x", '{"content": [], "usage": {"input_tokens": null}}', ""),
    ],
    ids=["oa-empty-no-usage", "an-no-usage", "an-null-usage"],
)
def test_a_reply_without_usage_is_still_counted_against_the_budget(
    serve: Callable[..., RawServer], spec: str, body: str, text: str
) -> None:
    r = roles(serve(http(200, body)), spec)
    assert r.target.complete(CompletionRequest.of("a question " * 20)).text == text
    (record,) = r.ledger.records
    assert record.ok and record.input_tokens > 20


def test_anthropic_stream_ending_without_message_stop_is_not_a_reply(
    serve: Callable[..., RawServer],
) -> None:
    start = {
        "type": "message_start",
        "message": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 0},
        },
    }
    body = f"event: message_start\ndata: {json.dumps(start)}\n\n"
    server = serve(http(200, body, "text/event-stream"), http(200, "{}"))
    with pytest.raises(RetriesExhausted, match="stream ended"):
        ask(roles(server, "anthropic:claude-x", stream="true", max_retries="0"))


@pytest.mark.parametrize(
    ("spec", "event"),
    [
        ("openai:gpt-4o", 'data: {"error": {"message": "server overloaded"}}\n\n'),
        (
            "anthropic:claude-x",
            'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
            '"message": "Overloaded"}}\n\n',
        ),
    ],
)
def test_error_event_inside_a_stream_is_retried(
    serve: Callable[..., RawServer], spec: str, event: str
) -> None:
    server = serve(http(200, event, "text/event-stream"))
    with pytest.raises(RetriesExhausted, match="verloaded"):
        ask(roles(server, spec, stream="true", max_retries="1"))
    assert server.hits == 2


@pytest.mark.parametrize("spec", SPECS)
def test_exhausted_quota_is_not_retried_and_says_so(
    serve: Callable[..., RawServer], spec: str
) -> None:
    body = '{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}'
    server = serve(http(429, body, Retry_After="3"))
    with pytest.raises(BackendUnavailable, match="quota") as caught:
        ask(roles(server, spec))
    assert server.hits == 1 and "billing" in caught.value.hint


@pytest.mark.parametrize("spec", SPECS)
def test_403_names_the_key_variable_and_404_names_the_model(
    serve: Callable[..., RawServer], spec: str
) -> None:
    env = "OPENAI_API_KEY" if spec.startswith("openai") else "ANTHROPIC_API_KEY"
    server = serve(http(403, '{"error": {"message": "forbidden"}}'))
    with pytest.raises(BackendUnavailable) as forbidden:
        ask(roles(server, spec))
    assert env in str(forbidden.value)
    server = serve(http(404, '{"error": {"message": "not found"}}'))
    with pytest.raises(BackendUnavailable) as missing:
        ask(roles(server, spec))
    assert spec.split(":")[1] in str(missing.value)


@pytest.mark.parametrize("spec", SPECS)
def test_the_key_never_appears_in_errors_or_the_journal(
    serve: Callable[..., RawServer], spec: str
) -> None:
    echo = json.dumps({"error": {"message": f"Invalid key {KEY} for http://u:pw@x"}})
    server = serve(http(401, echo), http(500, echo))
    r = roles(server, spec, max_retries="0")
    for _ in range(2):
        with pytest.raises(BackendError) as caught:
            ask(r)
        assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)
    assert all(KEY not in record.error for record in r.ledger.records)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_proxy_page_echoing_the_key_does_not_leak_it(
    serve: Callable[..., RawServer], spec: str, stream: str
) -> None:
    page = f"<html><body>Blocked request. Authorization: Bearer {KEY}</body></html>"
    server = serve(http(200, page, "text/html"))
    with pytest.raises(BackendError, match="HTML page") as caught:
        ask(roles(server, spec, stream=stream, max_retries="0"))
    assert KEY not in str(caught.value)


@pytest.mark.parametrize("spec", SPECS)
def test_credentials_in_the_base_url_stay_out_of_messages(
    serve: Callable[..., RawServer], spec: str
) -> None:
    server = serve(http(500, "{}"))
    base = f"http://user:hunter2pass@127.0.0.1:{server.port}" + (
        "/v1" if spec.startswith("openai") else ""
    )
    r = roles(server, spec, base_url=base, max_retries="0")
    with pytest.raises(BackendError) as caught:
        ask(r)
    assert "hunter2pass" not in str(caught.value)


def test_retries_exhausted_shows_the_fix_once(serve: Callable[..., RawServer]) -> None:
    server = serve(lambda conn: time.sleep(3))
    with pytest.raises(RetriesExhausted) as caught:
        ask(roles(server, "openai:gpt-4o", timeout="0.3", max_retries="1"))
    assert str(caught.value).count("fix:") == 1


def _drip(conn: socket.socket) -> None:
    """A 200 whose body arrives one byte every 0.2 s, each within the read timeout, for ever."""
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99999\r\n\r\n"
    )
    for _ in range(100):
        conn.sendall(b" ")
        time.sleep(0.2)


def _drip_stream(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
    for _ in range(100):
        conn.sendall(b": keep-alive\n\n")
        time.sleep(0.2)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_reply_that_drips_in_is_cut_at_the_deadline(
    serve: Callable[..., RawServer], spec: str, stream: str
) -> None:
    server = serve(_drip_stream if stream == "true" else _drip)
    started = time.monotonic()
    with pytest.raises(RetriesExhausted, match=r"timed out|deadline") as caught:
        ask(roles(server, spec, stream=stream, timeout="1", deadline="1.5", max_retries="0"))
    assert time.monotonic() - started < 5
    assert "deadline" in caught.value.hint


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_huge_reply_is_refused_not_buffered(
    serve: Callable[..., RawServer],
    spec: str,
    stream: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skillopt_core.backends.api import _guard

    monkeypatch.setattr(_guard, "MAX_REPLY_BYTES", 200_000)
    text = "x" * 1_000_000
    if stream == "true":
        chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
        server = serve(http(200, body, "text/event-stream"))
    else:
        server = serve(http(200, CHAT_OK.replace('"hi"', json.dumps(text))))
    with pytest.raises(BackendError, match="larger than") as caught:
        ask(roles(server, spec, stream=stream))
    assert not isinstance(caught.value, TransientError) and server.hits == 1
