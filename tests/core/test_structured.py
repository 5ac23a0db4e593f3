from __future__ import annotations

import contextlib

import pytest

from skillopt_core.backends import CompletionRequest
from skillopt_core.structured import StructuredReplyError, complete_json, parse_json_reply
from skillopt_core.testing import ScriptedBackend

SCHEMA = {
    "type": "object",
    "properties": {"edits": {"type": "array", "items": {"type": "object", "required": ["op"]}}},
    "required": ["edits"],
}


@pytest.mark.parametrize(
    "reply",
    [
        '{"edits": [{"op": "add"}]}',
        'Sure! Here you go:\n```json\n{"edits": [{"op": "add"}]}\n```\nHope that helps.',
        '{"edits": [{"op": "add"},],}',
        'I propose {"edits": [{"op": "add"}]} as the change.',
        '{"edits": [{"op": "add"}, {"op": "replace", "content": "unterminated',
    ],
)
def test_near_json_is_repaired(reply: str) -> None:
    value = parse_json_reply(reply, SCHEMA)
    assert value["edits"][0]["op"] == "add"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"edits": [{"op": "add", "content": "Never run', {"edits": []}),
        (
            '{"edits": [{"op": "add"}, {"op": "add", "content": "Never run',
            {"edits": [{"op": "add"}]},
        ),
        ('{"edits": [{"op": "add"}, {"op": "add", "meta": {"a": 1}', {"edits": [{"op": "add"}]}),
        ('{"edits": [{"op": "add"}], "notes": "the tests fa', {"edits": [{"op": "add"}]}),
        ('{"edits": [{"op": "add"}]', {"edits": [{"op": "add"}]}),
    ],
)
def test_a_cut_reply_keeps_only_what_was_complete(reply: str, expected: object) -> None:
    """An array element still being written when the reply stopped is dropped whole: an edit
    whose content ends mid-sentence ("Never run" of "Never run migrations without a backup")
    must not reach the skill."""
    assert parse_json_reply(reply, SCHEMA) == expected


def test_a_cut_scalar_in_an_array_is_dropped() -> None:
    assert parse_json_reply('{"notes": ["keep", "cu') == {"notes": ["keep"]}


def test_schema_violation_is_reported() -> None:
    with pytest.raises(StructuredReplyError, match="schema"):
        parse_json_reply('{"changes": []}', SCHEMA)


def test_prose_only_reply_is_an_error() -> None:
    with pytest.raises(StructuredReplyError):
        parse_json_reply("I could not find anything to change.", SCHEMA)


def test_complete_json_reasks_once_with_the_error() -> None:
    backend = ScriptedBackend("no json here", '{"edits": []}')
    assert complete_json(backend, CompletionRequest.of("hi"), SCHEMA) == {"edits": []}
    assert len(backend.requests) == 2
    second = backend.requests[1]
    assert second.json_schema == SCHEMA
    assert "could not be used" in second.messages[-1].content
    assert second.messages[-2].content == "no json here"


def test_complete_json_gives_up_after_the_reask() -> None:
    backend = ScriptedBackend("nope", "still nope")
    with pytest.raises(StructuredReplyError):
        complete_json(backend, CompletionRequest.of("hi"), SCHEMA)
    assert len(backend.requests) == 2


@pytest.mark.parametrize(
    "reply", ['Here:\n{"edits": []}\nI left out the "risky one', '"unterminated', 'It is "yes']
)
def test_a_quote_left_open_outside_any_json_is_no_crash(reply: str) -> None:
    """The truncation repair indexed an empty stack (IndexError, which no caller catches)."""
    with contextlib.suppress(StructuredReplyError):
        parse_json_reply(reply)
