"""A chat completion the model refused (``content`` null, ``refusal`` set) raised a BackendError,
so one refused replay ended a whole night with exit 1; it is now an empty answer, as the
Responses API returns it, which the night scores or drops like any other non-answer."""

from __future__ import annotations

import json

from skillopt_core.backends import CompletionRequest
from tests.backends._raw import RawServer, http, roles

REFUSED = json.dumps(
    {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": "I'm sorry, I cannot assist with that request.",
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
    }
)


def test_a_refused_chat_completion_is_an_empty_answer_not_a_failure() -> None:
    server = RawServer(http(200, REFUSED))
    try:
        target = roles(server, "openai:gpt-4o").target
        completion = target.complete(CompletionRequest.of("q"))
        assert completion.text == ""
        assert server.hits == 1  # not retried, not raised
    finally:
        server.close()
