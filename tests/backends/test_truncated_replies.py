"""A reply the server cut at ``max_tokens`` is flagged, so a JSON reply that never ended is
reported as cut short (not as a model that cannot write JSON). The real OpenAI and Anthropic
SDKs talk to the loopback :class:`tests.backends._raw.RawServer`."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from skillopt_core.backends import CompletionRequest
from skillopt_core.structured import StructuredReplyError, complete_json
from tests.backends._raw import RawServer, http, roles

SCHEMA = {
    "type": "object",
    "required": ["edits"],
    "properties": {"edits": {"type": "array", "minItems": 1}},
}
CUT = '{"edits": [{"op": "add", "content": "Run the tests befo'


def chat(text: str, finish: str) -> bytes:
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
    }
    return http(200, json.dumps(body))


def message(text: str, stop: str) -> bytes:
    body = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop,
        "usage": {"input_tokens": 3, "output_tokens": 9},
    }
    return http(200, json.dumps(body))


def response(text: str, status: str) -> bytes:
    body = {
        "id": "r",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4o",
        "status": status,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "output": [
            {
                "type": "message",
                "id": "o",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12},
    }
    return http(200, json.dumps(body))


REPLIES: dict[str, Callable[[str, bool], bytes]] = {
    "openai:gpt-4o": lambda text, cut: chat(text, "length" if cut else "stop"),
    "anthropic:claude-x": lambda text, cut: message(text, "max_tokens" if cut else "end_turn"),
    "responses": lambda text, cut: response(text, "incomplete" if cut else "completed"),
}


def open_target(server: RawServer, kind: str) -> object:
    if kind == "responses":
        return roles(server, "openai:gpt-4o", stream="false", api="responses").target
    return roles(server, kind, stream="false").target


@pytest.mark.parametrize("kind", sorted(REPLIES))
@pytest.mark.parametrize("cut", [True, False])
def test_a_reply_cut_at_max_tokens_is_flagged(
    serve: Callable[..., RawServer], kind: str, cut: bool
) -> None:
    target = open_target(serve(REPLIES[kind]("partial answer", cut)), kind)
    completion = target.complete(CompletionRequest.of("q", max_tokens=9))  # type: ignore[attr-defined]
    assert completion.text == "partial answer"
    assert completion.truncated is cut


@pytest.mark.parametrize("kind", sorted(REPLIES))
def test_a_json_reply_that_never_ended_says_it_was_cut_short(
    serve: Callable[..., RawServer], kind: str
) -> None:
    server = serve(REPLIES[kind](CUT, True))
    target = open_target(server, kind)
    with pytest.raises(StructuredReplyError) as caught:
        complete_json(target, CompletionRequest.of("q", max_tokens=64), SCHEMA)  # type: ignore[arg-type]
    assert "cut off at its limit of 64 tokens" in caught.value.message
    assert "reasoning model" in caught.value.hint
    assert server.hits == 2  # re-asked once, for a shorter reply
    assert b"shorter JSON value" not in server.heads[0]


def test_a_cut_reply_keeps_its_complete_edits_and_drops_the_cut_one(
    serve: Callable[..., RawServer],
) -> None:
    reply = '{"edits": [{"op": "add", "content": "Run ruff."}, ' + CUT.removeprefix('{"edits": [')
    target = open_target(serve(REPLIES["openai:gpt-4o"](reply, True)), "openai:gpt-4o")
    value = complete_json(target, CompletionRequest.of("q"), SCHEMA)  # type: ignore[arg-type]
    assert value == {"edits": [{"op": "add", "content": "Run ruff."}]}


def test_an_unfinished_json_reply_that_was_not_cut_keeps_its_own_message(
    serve: Callable[..., RawServer],
) -> None:
    target = open_target(serve(REPLIES["openai:gpt-4o"](CUT, False)), "openai:gpt-4o")
    with pytest.raises(StructuredReplyError) as caught:
        complete_json(target, CompletionRequest.of("q", max_tokens=64), SCHEMA)  # type: ignore[arg-type]
    assert "cut off" not in caught.value.message
    assert "not valid JSON" in caught.value.message
