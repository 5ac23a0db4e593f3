"""Hostile-network probes of the API backends (the real SDKs against :mod:`tests.backends._raw`):
headers that never end, absurd usage figures, bytes that are not UTF-8, content that is not
text, a key quoted back in a failed response, misleading fix-it hints, another backend's
environment redirecting a call."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import pytest

from skillopt_core.backends import BackendUnavailable, CompletionRequest, Usage
from skillopt_core.backends.retry import RetriesExhausted, TransientError
from skillopt_core.backends.runtime import open_roles
from tests.backends._raw import CHAT_OK, SPECS, RawServer, ask, http, roles
from tests.backends.test_api_hostile_replies import MESSAGE_OK


def _endless_continue(conn: socket.socket) -> None:
    """``100 Continue`` every 0.2 s: each is a whole (informational) response, so no read ever
    waits the read timeout and the HTTP library keeps waiting for the final one."""
    for _ in range(60):
        conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        time.sleep(0.2)


def _header_drip(conn: socket.socket) -> None:
    """A status line, then one header line every 0.2 s, never the blank line that ends them."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for number in range(60):
        conn.sendall(b"X-Pad-%d: x\r\n" % number)
        time.sleep(0.2)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("answer", [_endless_continue, _header_drip], ids=["100", "headers"])
def test_a_reply_whose_headers_never_end_is_cut_at_the_deadline(
    serve: Callable[..., RawServer], spec: str, answer: Callable[[socket.socket], None]
) -> None:
    server = serve(answer)
    started = time.monotonic()
    with pytest.raises(RetriesExhausted, match=r"timed out|deadline") as caught:
        ask(roles(server, spec, timeout="1", deadline="1.5", max_retries="0"))
    assert time.monotonic() - started < 4
    assert "deadline" in caught.value.hint and server.hits == 1


def test_the_deadline_is_per_call_not_per_connection(serve: Callable[..., RawServer]) -> None:
    """A kept-alive connection serves a later call with a fresh deadline."""
    server = serve(http(200, CHAT_OK))
    r = roles(server, "openai:gpt-4o", timeout="1", deadline="0.5", max_retries="0")
    for _ in range(3):
        assert ask(r) == "hi"
        time.sleep(0.3)


def _oa(usage: str) -> str:
    reply = json.loads(CHAT_OK)
    reply["usage"] = json.loads(usage)
    return json.dumps(reply)


def _an(usage: str) -> str:
    return json.dumps(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": "hi"}],
            "stop_reason": "end_turn",
            "usage": json.loads(usage),
        }
    )


ABSURD = {
    "negative": (
        '{"prompt_tokens": -1000000, "completion_tokens": -5}',
        '{"input_tokens": -1000000, "output_tokens": -5}',
    ),
    "text": (
        '{"prompt_tokens": "abc", "completion_tokens": null}',
        '{"input_tokens": "abc", "output_tokens": 1}',
    ),
    "huge": (
        '{"prompt_tokens": 1e300, "completion_tokens": 1}',
        '{"input_tokens": 1e300, "output_tokens": 1}',
    ),
    "fraction": (
        '{"prompt_tokens": 3.5, "completion_tokens": 1}',
        '{"input_tokens": 3.5, "output_tokens": 1}',
    ),
    "bool": (
        '{"prompt_tokens": true, "completion_tokens": 1}',
        '{"input_tokens": true, "output_tokens": 1}',
    ),
}


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("kind", sorted(ABSURD))
def test_absurd_usage_figures_count_the_estimate_not_the_figures(
    serve: Callable[..., RawServer], spec: str, kind: str
) -> None:
    oa_usage, an_usage = ABSURD[kind]
    body = _oa(oa_usage) if spec.startswith("openai") else _an(an_usage)
    r = roles(serve(http(200, body)), spec)
    completion = r.target.complete(CompletionRequest.of("a question " * 20))
    assert completion.text == "hi"
    (record,) = r.ledger.records
    assert record.ok and record.attempts == 1
    for figure in (record.input_tokens, record.output_tokens):
        assert type(figure) is int and 0 <= figure < 10_000
    assert record.input_tokens > 20  # the estimate of the prompt, not the reported figure
    assert 0 <= record.cost_usd < 1
    assert r.ledger.totals.calls == 1 and not r.ledger._in_flight


def test_a_failure_after_the_reply_still_settles_the_call(
    serve: Callable[..., RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever goes wrong accounting a reply, the call is in the ledger and its hold released."""
    r = roles(serve(http(200, CHAT_OK)), "openai:gpt-4o")

    def broken(*args: object) -> Usage:
        raise ValueError("accounting broke")

    monkeypatch.setattr(Usage, "checked", broken)
    with pytest.raises(ValueError):
        ask(r)
    (record,) = r.ledger.records
    assert record.attempts == 1 and not record.ok and "accounting broke" in record.error
    assert record.input_tokens > 0 and not r.ledger._in_flight


@pytest.mark.parametrize("spec", SPECS)
def test_a_body_that_is_not_utf8_is_a_clear_transient_error(
    serve: Callable[..., RawServer], spec: str
) -> None:
    body = CHAT_OK if spec.startswith("openai") else _an('{"input_tokens": 3, "output_tokens": 1}')
    broken = body.replace('"hi"', '"h\\u00ffi"').encode().replace(b"\\u00ff", b"\xff\xfe")
    server = serve(http(200, broken))
    with pytest.raises(RetriesExhausted, match="UTF-8") as caught:
        ask(roles(server, spec, max_retries="1"))
    assert server.hits == 2
    assert isinstance(caught.value.__cause__, TransientError)


# --- what the messages tell the user to fix ------------------------------------------------------


def test_an_anthropic_base_url_ending_in_v1_gets_the_right_hint(
    serve: Callable[..., RawServer],
) -> None:
    """The Anthropic SDK adds ``/v1/messages`` itself: the OpenAI advice ("end in /v1") is wrong."""
    server = serve(http(404, '{"error": {"type": "not_found_error", "message": "no route"}}'))
    r = roles(server, "anthropic:claude-x", base_url=f"http://127.0.0.1:{server.port}/v1")
    with pytest.raises(BackendUnavailable) as caught:
        ask(r)
    assert b"POST /v1/v1/messages" in server.heads[0]
    hint = caught.value.hint
    assert "usually end in /v1" not in hint and "without /v1" in hint, hint


def test_a_rejected_bearer_token_names_its_own_variable(serve: Callable[..., RawServer]) -> None:
    server = serve(http(401, '{"error": {"type": "authentication_error", "message": "no"}}'))
    options = {"base_url": f"http://127.0.0.1:{server.port}", "auth_token": "tok-0123456789"}
    r = open_roles("anthropic:claude-x", "anthropic:claude-x", options, check_health=False)
    with pytest.raises(BackendUnavailable) as caught:
        ask(r)
    assert "ANTHROPIC_AUTH_TOKEN" in caught.value.hint and server.hits == 1
    assert "tok-0123456789" not in str(caught.value)


@pytest.mark.parametrize(
    ("options", "environment", "sent"),
    [
        (
            {"api_key": "sk-ant-key-0123456789", "auth_token": "tok-0123456789"},
            {},
            b"sk-ant-key-0123456789",
        ),
        (
            {},
            {
                "ANTHROPIC_API_KEY": "sk-ant-key-0123456789",
                "ANTHROPIC_AUTH_TOKEN": "tok-0123456789",
            },
            b"sk-ant-key-0123456789",
        ),
        (
            {"auth_token": "tok-0123456789"},
            {"ANTHROPIC_API_KEY": "sk-ant-key-0123456789"},
            b"tok-0123456789",
        ),
        (
            {"api_key": "sk-ant-key-0123456789"},
            {"ANTHROPIC_AUTH_TOKEN": "tok-0123456789"},
            b"sk-ant-key-0123456789",
        ),
    ],
)
def test_a_key_and_a_bearer_token_both_set_send_one_of_them(
    serve: Callable[..., RawServer],
    monkeypatch: pytest.MonkeyPatch,
    options: dict[str, str],
    environment: dict[str, str],
    sent: bytes,
) -> None:
    """Shells often export both; the SDK refuses both ("Pass at most one of api_key=,
    auth_token="), which ended every call with that ValueError. One is sent: an option beats
    the environment, and from the same place the key wins."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    server = serve(http(200, MESSAGE_OK))
    base = {"base_url": f"http://127.0.0.1:{server.port}", **options}
    r = open_roles("anthropic:claude-x", "anthropic:claude-x", base, check_health=False)
    assert ask(r) == "hi"
    head = server.heads[0]
    other = b"tok-0123456789" if sent.startswith(b"sk-") else b"sk-ant-key-0123456789"
    assert sent in head and other not in head


# --- another backend's environment does not redirect the openai backend ----------------------------


def test_an_azure_endpoint_in_the_environment_does_not_hijack_the_openai_backend(
    serve: Callable[..., RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``AZURE_OPENAI_ENDPOINT`` (set for other tools) made ``openai`` send its key to Azure,
    past an explicit ``base_url``; it is the ``azure-openai`` backend's setting."""
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    server = serve(http(200, CHAT_OK))
    assert ask(roles(server, "openai:gpt-4o", max_retries="0")) == "hi"
    assert server.hits == 1 and b"/v1/chat/completions" in server.heads[0]


def test_the_azure_backend_still_reads_its_endpoint_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skillopt_core.backends import create_backend

    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://corp.openai.azure.com/")
    backend = create_backend("azure-openai:gpt-4o", {"api_key": "k"})
    assert backend.settings.azure.endpoint == "https://corp.openai.azure.com"  # type: ignore[attr-defined]
    explicit = create_backend("openai:gpt-4o", {"azure_endpoint": "https://x.openai.azure.com"})
    assert explicit.settings.azure is not None  # type: ignore[attr-defined]


# --- a failed Responses reply quoting the key --------------------------------------------------------


@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_failed_response_quoting_the_key_does_not_leak_it(
    serve: Callable[..., RawServer], stream: str
) -> None:
    key = "plainkey4711zzzq"  # no known secret format: only the backend knows it is the key
    failed = {
        "id": "r",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4o",
        "status": "failed",
        "error": {"code": "server_error", "message": f"bad key {key}"},
        "output": [],
        "usage": None,
    }
    event = {"type": "response.failed", "sequence_number": 1, "response": failed}
    body = f"event: response.failed\ndata: {json.dumps(event)}\n\n"
    answer = (
        http(200, body, "text/event-stream") if stream == "true" else http(200, json.dumps(failed))
    )
    r = roles(
        serve(answer), "openai:gpt-4o", max_retries="0", api="responses", api_key=key, stream=stream
    )
    with pytest.raises(RetriesExhausted, match="failed") as caught:
        ask(r)
    assert key not in str(caught.value) and key not in repr(caught.value.__cause__)
    assert all(key not in record.error for record in r.ledger.records)


# --- a chat message whose content is not text -------------------------------------------------------


def _chat_with(content: object) -> str:
    reply = json.loads(CHAT_OK)
    reply["choices"][0]["message"]["content"] = content
    return json.dumps(reply)


def test_chat_content_given_as_text_parts_is_joined(serve: Callable[..., RawServer]) -> None:
    parts = [{"type": "text", "text": "h"}, {"type": "text", "text": "i"}]
    assert ask(roles(serve(http(200, _chat_with(parts))), "openai:gpt-4o")) == "hi"


@pytest.mark.parametrize("content", [42, {"a": 1}, [{"type": "image_url"}], [7]])
def test_chat_content_that_is_not_text_never_reaches_the_caller(
    serve: Callable[..., RawServer], content: object
) -> None:
    server = serve(http(200, _chat_with(content)))
    with pytest.raises(RetriesExhausted, match="not a valid openai response"):
        ask(roles(server, "openai:gpt-4o", max_retries="1"))
    assert server.hits == 2


@pytest.mark.parametrize("spec", SPECS)
def test_a_proxy_asking_for_credentials_is_named_not_blamed_on_the_provider(
    serve: Callable[..., RawServer], spec: str
) -> None:
    server = serve(http(407, "Proxy Authentication Required", "text/plain"))
    with pytest.raises(BackendUnavailable, match="407") as caught:
        ask(roles(server, spec))
    assert "proxy" in caught.value.hint and "NO_PROXY" in caught.value.hint
    assert server.hits == 1
