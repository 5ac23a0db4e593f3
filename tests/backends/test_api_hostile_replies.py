"""Replies a hostile server sends to exhaust the client: a compressed body that inflates far past
the reply cap, and a ``Retry-After`` that would hold a call longer than its deadline.

The real OpenAI and Anthropic SDKs talk to :class:`tests.backends._raw.RawServer`; nothing here
waits: sleeps are recorded, not taken.
"""

from __future__ import annotations

import functools
import json
import re
import zlib
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from skillopt_core.backends import BackendError
from skillopt_core.backends.api import _guard
from skillopt_core.backends.retry import RetriesExhausted, TransientError
from tests.backends._raw import CHAT_OK, SPECS, RawServer, ask, http, roles

MiB = 1 << 20
MESSAGE_OK = json.dumps(
    {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
)
RATE_LIMITED = '{"error": {"message": "slow down", "type": "rate_limit_error"}}'


def ok(spec: str) -> str:
    return CHAT_OK if spec.startswith("openai") else MESSAGE_OK


def gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return packer.compress(data) + packer.flush()


@functools.cache
def bomb(inflated_mib: int) -> bytes:
    """``inflated_mib`` MiB of zeros, gzipped: about a thousandth of that on the wire."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MiB)
    return b"".join(packer.compress(zeros) for _ in range(inflated_mib)) + packer.flush()


def gzipped(body: bytes, ctype: str = "application/json", coding: str = "gzip") -> bytes:
    return http(200, body, ctype, Content_Encoding=coding)


# --- a compressed reply is capped by its decoded size --------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", ["false", "true"])
def test_a_gzip_bomb_is_stopped_at_the_decoded_cap(
    serve: Callable[..., RawServer], spec: str, stream: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_guard, "MAX_REPLY_BYTES", 4 * MiB)
    body = bomb(96)  # 96 KB on the wire, more than the real 64 MiB cap once inflated
    assert len(body) < _guard.MAX_REPLY_BYTES
    ctype = "text/event-stream" if stream == "true" else "application/json"
    server = serve(gzipped(body, ctype))
    with pytest.raises(BackendError) as caught:
        ask(roles(server, spec, stream=stream))
    text = str(caught.value)
    assert "larger than 4 MiB" in text and f"127.0.0.1:{server.port}" in text, text
    assert "Traceback" not in text and "fix:" in text
    assert not isinstance(caught.value, TransientError) and server.hits == 1


def test_the_default_cap_applies_to_the_decoded_reply(serve: Callable[..., RawServer]) -> None:
    server = serve(gzipped(bomb(72)))
    with pytest.raises(BackendError, match=r"larger than 64 MiB") as caught:
        ask(roles(server, "openai:gpt-4o"))
    assert f"openai at http://127.0.0.1:{server.port}/v1" in str(caught.value)
    assert server.hits == 1


def test_each_layer_of_a_nested_encoding_is_bounded(
    serve: Callable[..., RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_guard, "MAX_REPLY_BYTES", 4 * MiB)
    server = serve(gzipped(gzip(bomb(96)), coding="gzip, gzip"))
    with pytest.raises(BackendError, match="larger than 4 MiB"):
        ask(roles(server, "openai:gpt-4o"))


def _deflate(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("coding", "encode"),
    [
        ("gzip", gzip),
        ("x-gzip", gzip),
        ("deflate", lambda d: _deflate(d, zlib.MAX_WBITS)),
        ("deflate", lambda d: _deflate(d, -zlib.MAX_WBITS)),  # raw, as some servers send it
        ("identity", lambda d: d),
    ],
    ids=["gzip", "x-gzip", "zlib-deflate", "raw-deflate", "identity"],
)
def test_a_compressed_reply_within_the_cap_is_read_as_usual(
    serve: Callable[..., RawServer], spec: str, coding: str, encode: Callable[[bytes], bytes]
) -> None:
    server = serve(gzipped(encode(ok(spec).encode()), coding=coding))
    assert ask(roles(server, spec)) == "hi"
    assert b"accept-encoding: gzip, deflate\r\n" in server.heads[0].lower()


def test_an_encoding_the_client_did_not_ask_for_is_refused(serve: Callable[..., RawServer]) -> None:
    server = serve(gzipped(b"\x1b\x00\x00", coding="br"))
    with pytest.raises(BackendError, match=r"Content-Encoding 'br'") as caught:
        ask(roles(server, "openai:gpt-4o"))
    assert server.hits == 1 and "base_url" in caught.value.hint


def test_a_damaged_gzip_body_is_a_clear_transient_error(serve: Callable[..., RawServer]) -> None:
    server = serve(gzipped(b"\x1f\x8b\x08\x00not gzip at all"))
    with pytest.raises(RetriesExhausted, match="damaged") as caught:
        ask(roles(server, "openai:gpt-4o", max_retries="1"))
    assert server.hits == 2 and "Traceback" not in str(caught.value)


# --- Retry-After is honoured within the call's deadline, never past it ---------------------------


def _in(seconds: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds), usegmt=True)


@pytest.mark.parametrize("spec", SPECS)
def test_a_retry_after_past_the_deadline_fails_at_once(
    serve: Callable[..., RawServer], spec: str
) -> None:
    sleeps: list[float] = []
    server = serve(http(429, RATE_LIMITED, Retry_After="5000"), http(200, ok(spec)))
    with pytest.raises(RetriesExhausted) as caught:
        ask(roles(server, spec, sleeps, deadline="60"))
    assert sleeps == [] and server.hits == 1
    message, hint = caught.value.message, caught.value.hint
    assert "5000s" in message and "Retry-After" in message and "60s deadline" in message
    assert "--option deadline=" in hint


def test_a_retry_after_within_the_deadline_is_waited_in_full(
    serve: Callable[..., RawServer],
) -> None:
    sleeps: list[float] = []
    server = serve(http(503, RATE_LIMITED, Retry_After="300"), http(200, CHAT_OK))
    assert ask(roles(server, "openai:gpt-4o", sleeps, deadline="600")) == "hi"
    assert sleeps == [300.0] and server.hits == 2


def test_the_default_deadline_follows_the_timeout(serve: Callable[..., RawServer]) -> None:
    """No ``deadline`` option: ten ``timeout``s, as for the reply itself (here 10 x 2 s)."""
    server = serve(http(429, RATE_LIMITED, Retry_After="25"), http(200, CHAT_OK))
    with pytest.raises(RetriesExhausted, match=r"25s .*20s deadline"):
        ask(roles(server, "openai:gpt-4o", timeout="2"))


def test_a_retry_after_date_is_honoured(serve: Callable[..., RawServer]) -> None:
    sleeps: list[float] = []
    server = serve(http(429, RATE_LIMITED, Retry_After=_in(30)), http(200, CHAT_OK))
    assert ask(roles(server, "openai:gpt-4o", sleeps, deadline="600")) == "hi"
    (waited,) = sleeps
    assert 0 < waited <= 30


def test_a_retry_after_date_past_the_deadline_fails_at_once(
    serve: Callable[..., RawServer],
) -> None:
    sleeps: list[float] = []
    server = serve(http(429, RATE_LIMITED, Retry_After=_in(7200)), http(200, CHAT_OK))
    with pytest.raises(RetriesExhausted) as caught:
        ask(roles(server, "openai:gpt-4o", sleeps, deadline="600"))
    assert sleeps == [] and server.hits == 1
    asked = re.search(r"asked to wait (\d+)s", caught.value.message)
    assert asked is not None and 7000 < int(asked.group(1)) <= 7200


# --- a proxy from the environment is never used for a server on this machine -------------------


@pytest.mark.parametrize("spec", SPECS)
def test_a_loopback_server_is_reached_past_an_environment_proxy(
    serve: Callable[..., RawServer], spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    dead = "http://127.0.0.1:9"  # the discard port: nothing answers there
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, dead)
    server = serve(http(200, ok(spec)))
    assert ask(roles(server, spec, max_retries="0")) == "hi"
    assert server.hits == 1


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:8000/v1", "127.0.0.1"),
        ("http://127.5.0.1/v1", "127.5.0.1"),
        ("http://localhost:11434", "localhost"),
        ("http://[::1]:8080/v1", "[::1]"),
        ("https://api.openai.com/v1", None),
        ("http://10.0.0.5:8000", None),
        ("not a url", None),
    ],
)
def test_only_this_machine_counts_as_loopback(url: str, host: str | None) -> None:
    assert _guard.loopback_host(url) == host
