"""A loopback fake model that can also *call tools*, for driving the real harness CLIs.

:class:`~skillopt_core.testing.FakeModelServer` answers with text only. To prove that a harness
really wires our MCP server (or our slash command's Bash call), the model has to ask for a tool
and see its result in the next request. :class:`ToolCall` is a script step that the three wire
formats render as a tool call: Anthropic ``tool_use``, Responses ``function_call``, Chat
Completions ``tool_calls``; streaming and not. Everything else is the stock fake.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillopt_core.testing import FakeModelServer
from skillopt_core.testing._handler import FakeHandler
from skillopt_core.testing._wire import SseEvent, request_text
from skillopt_core.testing.fake_server import _Server


@dataclass(frozen=True)
class ToolCall:
    """Ask the harness to run ``name`` with ``arguments``."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = ""  # Responses API tool groups (Codex offers MCP tools this way)


def _id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:20]}"


def offered_tools(body: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(full name, name, namespace)`` of every tool a request offers, whichever API it speaks;
    a namespaced tool's full name is ``namespace__name``."""
    found: list[tuple[str, str, str]] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        if isinstance(function, Mapping) and function.get("name"):
            found.append((str(function["name"]), str(function["name"]), ""))
        elif tool.get("type") == "namespace":
            space = str(tool.get("name", ""))
            for inner in tool.get("tools") or []:
                if isinstance(inner, Mapping) and inner.get("name"):
                    found.append((f"{space}__{inner['name']}", str(inner["name"]), space))
        elif tool.get("name"):
            found.append((str(tool["name"]), str(tool["name"]), ""))
    return found


def tool_names(body: Mapping[str, Any]) -> list[str]:
    return [full for full, _, _ in offered_tools(body)]


def has_tool_result(body: Mapping[str, Any]) -> bool:
    """Whether the request carries the result of an earlier tool call."""
    for item in body.get("input") or []:
        if isinstance(item, Mapping) and str(item.get("type", "")).endswith("_output"):
            return True
    for message in body.get("messages") or []:
        if not isinstance(message, Mapping):
            continue
        if message.get("role") == "tool":
            return True
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(p, Mapping) and p.get("type") == "tool_result" for p in content
        ):
            return True
    return False


def full_text(body: Mapping[str, Any]) -> str:
    """Every string in the request (tool results included), for assertions."""
    return json.dumps(body, ensure_ascii=False)


# --- wire shapes ---------------------------------------------------------------------------------


def _anthropic(call: ToolCall, model: str, stream: bool) -> Any:
    tool_id = _id("toolu_")
    args = json.dumps(dict(call.arguments))
    usage = {"input_tokens": 10, "output_tokens": 5}
    block = {"type": "tool_use", "id": tool_id, "name": call.name, "input": dict(call.arguments)}
    message = {
        "id": _id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": usage,
    }
    if not stream:
        return message
    start = {**message, "content": [], "stop_reason": None}
    payloads = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": args},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    return [(p["type"], p) for p in payloads]


def _responses(call: ToolCall, model: str, body: Mapping[str, Any], stream: bool) -> Any:
    resp_id, item_id, call_id = _id("resp_"), _id("fc_"), _id("call_")
    args = json.dumps(dict(call.arguments))
    item = {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": call.name,
        "arguments": args,
        "status": "completed",
        **({"namespace": call.namespace} if call.namespace else {}),
    }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }

    def response(status: str, output: list[Any]) -> dict[str, Any]:
        return {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": status,
            "error": None,
            "incomplete_details": None,
            "model": model,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "usage": usage if status == "completed" else None,
            "metadata": {},
        }

    if not stream:
        return response("completed", [item])
    added = {**item, "arguments": "", "status": "in_progress"}
    payloads: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress", [])},
        {"type": "response.in_progress", "response": response("in_progress", [])},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": item_id,
            "output_index": 0,
            "delta": args,
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": item_id,
            "output_index": 0,
            "arguments": args,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response("completed", [item])},
    ]
    return [(p["type"], {**p, "sequence_number": n}) for n, p in enumerate(payloads)]


def _chat(call: ToolCall, model: str, body: Mapping[str, Any], stream: bool) -> Any:
    call_id = _id("call_")
    args = json.dumps(dict(call.arguments))
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    function = {"name": call.name, "arguments": args}
    base = {"id": _id("chatcmpl-"), "created": int(time.time()), "model": model}
    if not stream:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": function}],
        }
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls", "logprobs": None}
        return {**base, "object": "chat.completion", "choices": [choice], "usage": usage}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return {**base, "object": "chat.completion.chunk", "choices": [choice]}

    first = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": ""},
    }
    events: list[SseEvent] = [
        (None, chunk({"role": "assistant", "content": None, "tool_calls": [first]})),
        (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": args}}]})),
        (None, chunk({}, "tool_calls")),
    ]
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(
            (None, {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        )
    events.append((None, "[DONE]"))
    return events


class _ToolHandler(FakeHandler):
    def _serve_generation(self, api: str, flavour: str, body: Mapping[str, Any], step: Any) -> None:
        if not isinstance(step, ToolCall):
            super()._serve_generation(api, flavour, body, step)
            return
        model = str(body.get("model") or self.fake.models[0])
        stream = bool(body.get("stream"))
        if api == "messages":
            rendered = _anthropic(step, model, stream)
        elif api == "responses":
            rendered = _responses(step, model, body, stream)
        else:
            rendered = _chat(step, model, body, stream)
        if stream:
            self._send_events(rendered, None)
        else:
            self._send_json(200, rendered)


class _ToolServer(_Server):
    def __init__(self, fake: FakeModelServer) -> None:
        super().__init__(fake)
        self.RequestHandlerClass = type("BoundToolHandler", (_ToolHandler,), {"fake": fake})


class ToolFakeServer(FakeModelServer):
    """The stock fake, plus :class:`ToolCall` steps (scripted or returned by the responder)."""

    def start(self) -> ToolFakeServer:
        if self._server is None:
            import threading

            self._stopping.clear()
            self._server = _ToolServer(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="tool-fake-model-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def __enter__(self) -> ToolFakeServer:
        return self.start()


def call_tool_once(
    pick: Callable[[Sequence[str]], str | None],
    arguments: Mapping[str, Any],
    final: str = "Done.",
) -> Callable[[Mapping[str, Any]], Any]:
    """A responder: when a request offers a tool ``pick`` chooses and carries no tool result yet,
    call it; once the result is back (or no tool fits), answer ``final``."""

    def respond(body: Mapping[str, Any]) -> Any:
        if has_tool_result(body):
            return final
        tools = offered_tools(body)
        chosen = pick([full for full, _, _ in tools])
        for full, name, space in tools:
            if full == chosen:
                return ToolCall(name, arguments, space)
        return final

    return respond


def matching(server: str, tool: str) -> Callable[[Sequence[str]], str | None]:
    """Pick the tool ``tool`` of MCP server ``server`` however the harness prefixes it
    (Copilot ``server-tool``, Codex and Claude ``mcp__server__tool``)."""
    ends = tuple(sep + tool for sep in ("-", "__", ".", "/"))

    def pick(names: Sequence[str]) -> str | None:
        return next((n for n in names if server in n and n.endswith(ends)), None)

    return pick


__all__ = [
    "ToolCall",
    "ToolFakeServer",
    "call_tool_once",
    "full_text",
    "has_tool_result",
    "matching",
    "offered_tools",
    "request_text",
    "tool_names",
]
