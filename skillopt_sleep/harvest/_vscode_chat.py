"""VS Code Copilot Chat session objects: what is kept of them, and the events they yield.

The replayed session object is kept between reads (the log can only be replayed, not resumed
from events), so it is pruned to the fields the harvest uses and its strings are redacted as
each log entry arrives: private fields (``thinking`` parts, ``result.metadata`` with its
``renderedGlobalContext`` / ``renderedUserMessage`` / ``toolCallResults``, attached
``variableData``) never reach the index. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillopt_core.markers import is_engine_text
from skillopt_core.redaction import redact_many
from skillopt_sleep.harvest._events import (
    INPUT_CHARS,
    PROMPT_CHARS,
    RESULT_CHARS,
    TEXT_CHARS,
    TS_MAX,
    TS_MIN,
    Event,
    assistant,
    call,
    interrupt,
    parse_ts,
    result,
    user,
)

COPILOT_CHAT = "github.copilot-chat"
KEEP = "keep"  # schema leaf: kept whole, strings redacted
STRING_CAP = 16_384  # longer strings are cut before redaction (events keep far less)

_PART: dict[str, Any] = dict.fromkeys(
    (
        "kind",
        "value",
        "content",
        "inlineReference",
        "name",
        "toolId",
        "toolCallId",
        "invocationMessage",
        "pastTenseMessage",
        "isComplete",
        "resultDetails",
        "toolSpecificData",
    ),
    KEEP,
)
_REQUEST: dict[str, Any] = {
    "requestId": KEEP,
    "timestamp": KEEP,
    "message": {"text": KEEP},
    "response": [_PART],
    "agent": {"extensionId": KEEP, "id": KEEP},
    "isSystemInitiated": KEEP,
    "isCanceled": KEEP,
    "modelId": KEEP,
    "modelState": KEEP,
    "result": {"timings": KEEP},
}
SCHEMA: dict[str, Any] = {
    "sessionId": KEEP,
    "creationDate": KEEP,
    "requests": [_REQUEST],
}
_PRIVATE_PART_KINDS = frozenset({"thinking"})
_MARKDOWN_KINDS = frozenset({None, "markdownContent", "markdownVuln"})
_TOOL_KINDS = frozenset({"toolInvocationSerialized", "toolInvocation"})


def schema_at(path: Sequence[str | int]) -> Any:
    """The schema node for the value at ``path``; None when the harvest does not keep it."""
    node: Any = SCHEMA
    for step in path:
        if node == KEEP:
            return KEEP
        if isinstance(node, list):
            if not isinstance(step, int):
                return None
            node = node[0]
        elif isinstance(node, dict):
            if not isinstance(step, str) or step not in node:
                return None
            node = node[step]
        else:
            return None
    return node


# Levels kept below a ``KEEP`` leaf (genuine tool details nest a few): a value nested deeper
# (a crafted or corrupt record) would not survive storing the state (orjson stops at 254 levels)
# or walking its strings (Python's recursion limit), and the whole harvest failed with it.
KEEP_DEPTH = 32


def _bounded(value: Any, depth: int = KEEP_DEPTH) -> Any:
    """``value`` with every container nested deeper than ``depth`` replaced by None."""
    if isinstance(value, dict):
        return {k: _bounded(v, depth - 1) for k, v in value.items()} if depth else None
    if isinstance(value, list):
        return [_bounded(v, depth - 1) for v in value] if depth else None
    return value


def _shape(value: Any, node: Any) -> Any:
    if node == KEEP or node is None:
        return _bounded(value)
    if isinstance(node, list):
        return [_shape(v, node[0]) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    if node is _PART and value.get("kind") in _PRIVATE_PART_KINDS:
        return {"kind": value["kind"]}
    return {k: _shape(v, node[k]) for k, v in value.items() if k in node}


def _strings(value: Any, found: list[tuple[Any, Any, str]], parent: Any, key: Any) -> None:
    if isinstance(value, str):
        found.append((parent, key, value[:STRING_CAP]))
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(v, found, value, k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _strings(v, found, value, i)


def prune(value: Any, node: Any) -> Any:
    """``value`` cut down to schema ``node``, with every string redacted."""
    shaped = _shape(value, node)
    holder = [shaped]
    found: list[tuple[Any, Any, str]] = []
    _strings(shaped, found, holder, 0)
    for (parent, key, _), clean in zip(found, redact_many([s for _, _, s in found]), strict=True):
        parent[key] = clean
    return holder[0]


def strip_private(doc: Any, path: Sequence[str | int]) -> None:
    """After a write inside a response part, drop the part's text if the part is private."""
    if len(path) < 4 or path[0] != "requests" or path[2] != "response":
        return
    try:
        part = doc["requests"][path[1]]["response"][path[3]]
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(part, dict) and part.get("kind") in _PRIVATE_PART_KINDS:
        for key in [k for k in part if k != "kind"]:
            del part[key]


def _text(value: Any) -> str:
    """A string, or the ``value`` of a markdown-string object."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _text(value.get("value"))
    return ""


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _extension(request: dict[str, Any]) -> str:
    agent = request.get("agent")
    ext = agent.get("extensionId") if isinstance(agent, dict) else None
    if isinstance(ext, dict):
        ext = ext.get("_lower") or ext.get("value")
    return ext.lower() if isinstance(ext, str) else ""


def _tool_events(part: dict[str, Any], ts: float | None, fallback_id: str) -> list[Event]:
    data = part.get("toolSpecificData")
    data = data if isinstance(data, dict) else {}
    details = part.get("resultDetails")
    details = details if isinstance(details, dict) else {}
    command = data.get("commandLine")
    input_text = (
        _text(command.get("original") if isinstance(command, dict) else command)
        or _text(data.get("command"))
        or _text(details.get("input"))
        or _text(part.get("invocationMessage"))
    )
    call_id = str(part.get("toolCallId") or fallback_id)
    events = [call(ts, call_id, str(part.get("toolId") or ""), _cap(input_text, INPUT_CHARS))]
    output = details.get("output")
    pieces = [_text(o) for o in output] if isinstance(output, list) else [_text(output)]
    excerpt = "\n".join(p for p in pieces if p) or _text(part.get("pastTenseMessage"))
    state = data.get("terminalCommandState")
    exit_code = state.get("exitCode") if isinstance(state, dict) else None
    exit_code = exit_code if isinstance(exit_code, int) else None
    if part.get("isComplete") or excerpt or exit_code is not None:
        events.append(
            result(
                ts, call_id, _cap(excerpt, RESULT_CHARS), bool(details.get("isError")), exit_code
            )
        )
    return events


def _reply_ts(request: dict[str, Any], ts: float | None) -> float | None:
    state = request.get("modelState")
    done = parse_ts(state.get("completedAt")) if isinstance(state, dict) else None
    if done is not None:
        return done
    outcome = request.get("result")
    timings = outcome.get("timings") if isinstance(outcome, dict) else None
    elapsed = timings.get("totalElapsed") if isinstance(timings, dict) else None
    if ts is not None and isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool):
        done = ts + elapsed / 1000.0
        if TS_MIN <= done < TS_MAX:  # a bogus duration leaves the reply at the request's time
            return done
    return ts


def request_events(request: dict[str, Any], index: int) -> list[Event]:
    """Events of one Copilot request; none for other extensions' or system-initiated requests."""
    ext = _extension(request)
    if (ext and ext != COPILOT_CHAT) or request.get("isSystemInitiated"):
        return []
    message = request.get("message")
    text = _text(message.get("text") if isinstance(message, dict) else message).strip()
    if not text:
        return []
    ts = parse_ts(request.get("timestamp"))
    events = [user(ts, _cap(text, PROMPT_CHARS))]
    reply_ts = _reply_ts(request, ts)
    chunks: list[str] = []

    def flush() -> None:
        joined = "".join(chunks).strip()
        if joined:
            events.append(assistant(reply_ts, _cap(joined, TEXT_CHARS)))
        chunks.clear()

    response = request.get("response")
    rid = str(request.get("requestId") or index)
    for j, part in enumerate(response if isinstance(response, list) else ()):
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind in _MARKDOWN_KINDS:
            chunks.append(_text(part.get("value")) or _text(part.get("content")))
        elif kind == "inlineReference":
            ref = part.get("inlineReference")
            name = part.get("name") or (ref.get("name") if isinstance(ref, dict) else "")
            chunks.append(f"`{name}`" if name else "")
        elif kind in _TOOL_KINDS:
            flush()
            events.extend(_tool_events(part, reply_ts, f"{rid}:{j}"))
    flush()
    if request.get("isCanceled"):
        events.append(interrupt(reply_ts))
    return events


def session_events(doc: Any) -> tuple[dict[str, Any], list[Event]]:
    """Session-level facts and the events of every kept request of a replayed session."""
    meta: dict[str, Any] = {}
    events: list[Event] = []
    if not isinstance(doc, dict):
        return meta, events
    if isinstance(doc.get("sessionId"), str):
        meta["session_id"] = doc["sessionId"]
    requests = doc.get("requests")
    for index, request in enumerate(requests if isinstance(requests, list) else ()):
        if not isinstance(request, dict):
            continue
        found = request_events(request, index)
        if found:
            if isinstance(request.get("modelId"), str):
                meta["model"] = request["modelId"]
            if is_engine_text(found[0][3]):
                meta["engine"] = True
        events.extend(found)
    return meta, events
