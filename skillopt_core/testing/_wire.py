"""Wire shapes of the three provider APIs the fake server speaks, built from a reply text.

Each builder returns either one JSON body (non-streaming) or the ordered list of server-sent
events ``(event_name | None, payload)`` the real API would stream. Shapes follow the public API
references closely enough that the official SDKs and the harness CLIs parse them unchanged.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SseEvent = tuple[str | None, Any]


@dataclass(frozen=True)
class Rendered:
    """A reply ready to render: text, token counts and the model name to echo back."""

    text: str
    model: str
    input_tokens: int
    output_tokens: int
    chunk_size: int = 12


def estimate_tokens(text: str) -> int:
    """A deterministic, roughly-BPE-sized token count (about four characters per token)."""
    return max(1, (len(text) + 3) // 4) if text else 0


def chunks(text: str, size: int = 12) -> list[str]:
    """Split ``text`` into stream deltas; an empty text still yields one empty delta."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def request_text(api: str, body: Mapping[str, Any]) -> str:
    """All prompt text of a request in any of the three APIs, for responders and token counts."""
    parts: list[str] = []

    def add(content: Any) -> None:
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, Mapping):
                    text = part.get("text") or part.get("content")
                    add(text)
                else:
                    add(part)

    if api == "responses":
        add(body.get("instructions"))
        source = body.get("input")
        if isinstance(source, str):
            add(source)
        elif isinstance(source, list):
            for item in source:
                if isinstance(item, Mapping):
                    add(item.get("content"))
    else:
        add(body.get("system"))
        for message in body.get("messages") or []:
            if isinstance(message, Mapping):
                add(message.get("content"))
    return "\n".join(p for p in parts if p)


# --- OpenAI Chat Completions -------------------------------------------------------------------


def _chat_usage(r: Rendered) -> dict[str, Any]:
    return {
        "prompt_tokens": r.input_tokens,
        "completion_tokens": r.output_tokens,
        "total_tokens": r.input_tokens + r.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def chat_completion(r: Rendered) -> dict[str, Any]:
    return {
        "id": _id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": r.model,
        "system_fingerprint": "fp_fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": r.text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": _chat_usage(r),
    }


def chat_completion_events(r: Rendered, include_usage: bool) -> list[SseEvent]:
    """Chunks as OpenAI streams them; the usage chunk (empty choices) only when asked for."""
    base = {
        "id": _id("chatcmpl-"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": r.model,
        "system_fingerprint": "fp_fake",
    }
    extra: dict[str, Any] = {"usage": None} if include_usage else {}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**base, "choices": [choice], **extra}

    events: list[SseEvent] = [(None, chunk({"role": "assistant", "content": "", "refusal": None}))]
    events += [(None, chunk({"content": piece})) for piece in chunks(r.text, r.chunk_size) if piece]
    events.append((None, chunk({}, "stop")))
    if include_usage:
        events.append((None, {**base, "choices": [], "usage": _chat_usage(r)}))
    events.append((None, "[DONE]"))
    return events


# --- OpenAI Responses --------------------------------------------------------------------------


def _responses_usage(r: Rendered) -> dict[str, Any]:
    return {
        "input_tokens": r.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": r.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": r.input_tokens + r.output_tokens,
    }


def _response_object(
    r: Rendered, body: Mapping[str, Any], resp_id: str, status: str, output: list[Any]
) -> dict[str, Any]:
    text_config = body.get("text") or {"format": {"type": "text"}}
    return {
        "id": resp_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": r.model,
        "output": output,
        "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": bool(body.get("store", True)),
        "temperature": body.get("temperature", 1.0),
        "text": text_config,
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": _responses_usage(r) if status == "completed" else None,
        "user": None,
        "metadata": body.get("metadata") or {},
    }


def _message_item(item_id: str, text: str | None, status: str) -> dict[str, Any]:
    content = [] if text is None else [_text_part(text)]
    return {
        "id": item_id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def response(r: Rendered, body: Mapping[str, Any]) -> dict[str, Any]:
    item = _message_item(_id("msg_"), r.text, "completed")
    return _response_object(r, body, _id("resp_"), "completed", [item])


def response_events(r: Rendered, body: Mapping[str, Any]) -> list[SseEvent]:
    """The Responses stream for one text message, each event numbered by ``sequence_number``."""
    resp_id, item_id = _id("resp_"), _id("msg_")
    pending = _response_object(r, body, resp_id, "in_progress", [])
    done_item = _message_item(item_id, r.text, "completed")
    where = {"item_id": item_id, "output_index": 0, "content_index": 0}
    payloads: list[dict[str, Any]] = [
        {"type": "response.created", "response": pending},
        {"type": "response.in_progress", "response": pending},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": _message_item(item_id, None, "in_progress"),
        },
        {"type": "response.content_part.added", **where, "part": _text_part("")},
    ]
    payloads += [
        {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []}
        for piece in chunks(r.text, r.chunk_size)
        if piece
    ]
    payloads += [
        {"type": "response.output_text.done", **where, "text": r.text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": _text_part(r.text)},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {
            "type": "response.completed",
            "response": _response_object(r, body, resp_id, "completed", [done_item]),
        },
    ]
    return [(p["type"], {**p, "sequence_number": n}) for n, p in enumerate(payloads)]


# --- Anthropic Messages ------------------------------------------------------------------------


def _anthropic_usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "service_tier": "standard",
    }


def message(r: Rendered) -> dict[str, Any]:
    return {
        "id": _id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": r.model,
        "content": [{"type": "text", "text": r.text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(r.input_tokens, r.output_tokens),
    }


def message_events(r: Rendered) -> list[SseEvent]:
    start = {**message(r), "content": [], "stop_reason": None}
    start["usage"] = _anthropic_usage(r.input_tokens, 1)
    payloads: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
    ]
    payloads += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
        for piece in chunks(r.text, r.chunk_size)
        if piece
    ]
    payloads += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": r.output_tokens},
        },
        {"type": "message_stop"},
    ]
    return [(p["type"], p) for p in payloads]


# --- errors and model lists --------------------------------------------------------------------

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def error_body(api: str, status: int, message: str) -> dict[str, Any]:
    kind: str
    if api == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = _OPENAI_ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def model_list(api: str, models: list[str]) -> dict[str, Any]:
    if api == "anthropic":
        data = [
            {
                "type": "model",
                "id": m,
                "display_name": m,
                "created_at": "2025-01-01T00:00:00Z",
            }
            for m in models
        ]
        return {"data": data, "has_more": False, "first_id": models[0], "last_id": models[-1]}
    listed: list[dict[str, Any]] = [
        {"id": m, "object": "model", "created": 1735689600, "owned_by": "fake"} for m in models
    ]
    return {"object": "list", "data": listed}
