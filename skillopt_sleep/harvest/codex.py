"""Codex rollouts: ``<home>/sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``<home>/archived_sessions/``.

``<home>`` is the explicit ``codex`` home, else ``$CODEX_HOME``, else ``~/.codex``. Reads the
current record shapes (``response_item`` messages and calls, ``event_msg`` ``item_completed``
``UserMessage`` / ``AgentMessage`` / ``CommandExecution``) and the older ``event_msg``
``user_message`` / ``agent_message`` / ``exec_command_end`` ones. Messages mirrored in both
channels are kept once; injected developer, ``<environment_context>`` and AGENTS.md preambles are
dropped. ``codex exec resume`` appends to the same rollout (same session id), so it stays one
session; a fork is a new rollout whose ``session_meta`` names its parent (``forked_from_id``: the
session's ``forked_from``) and which begins with a copy of the parent's items. A sub-agent
(``spawn_agent``) writes its own rollout whose ``session_meta`` names the parent thread; like
Claude's sub-agent files it is a sidechain, excluded unless ``include_sidechains``: its prompt
was written by the model, not typed by the user.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from skillopt_sleep.harvest import _compiled
from skillopt_sleep.harvest._events import FileState, assistant, call, interrupt, parse_ts, result
from skillopt_sleep.harvest._registry import SOURCES, Feed, HarvestConfig, Source, Unreadable

_INJECTED = (
    "<environment_context",
    "<user_instructions",
    "<codex_internal_context",
    "<permissions instructions",
    "<skills_instructions",
    "<collaboration_mode",
    "<turn_aborted",
    "<user_shell_command",
    "<subagent_notification",
    "# AGENTS.md instructions",
    "# Agents.md instructions",
)
_IGNORED_TOP = frozenset({"world_state", "token_usage_record", "compacted", "thread_settings"})
_EVENTS = frozenset(
    {
        "item_completed",
        "user_message",
        "agent_message",
        "exec_command_end",
        "patch_apply_end",
        "turn_aborted",
    }
)
_EXIT = re.compile(r"(?:Process exited with code|Exit code:?)\s*(-?\d+)")
_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
    }
)


def _texts(content: Any, kinds: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)
    ]


def _user_text(parts: list[str]) -> str:
    """The typed request, without the preambles Codex injects as user-role content."""
    kept = [p for p in parts if not p.lstrip().startswith(_INJECTED)]
    return "\n".join(kept).strip()


def _is_subagent(meta: dict[str, Any]) -> bool:
    """Whether a rollout's ``session_meta`` is a spawned sub-agent's (Codex 0.171:
    ``thread_source: "subagent"``, ``source: {"subagent": ...}``); not ``parent_thread_id``
    alone, which need not mean the model wrote the prompt."""
    source = meta.get("source")
    return meta.get("thread_source") == "subagent" or (
        isinstance(source, dict) and "subagent" in source
    )


def _arguments(raw: Any) -> str:
    """A readable excerpt of call arguments (the command when there is one)."""
    data = raw
    if isinstance(raw, str):
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    if isinstance(data, dict):
        for field in ("cmd", "command", "input", "path", "query"):
            value = data.get(field)
            if isinstance(value, list):
                return " ".join(str(v) for v in value)
            if isinstance(value, str):
                return value
    return orjson.dumps(data).decode("utf-8", "replace") if data is not None else ""


def _output(raw: Any) -> tuple[str, int | None]:
    """Output text and exit code of a ``function_call_output`` (plain, headed or JSON-wrapped)."""
    if isinstance(raw, dict):
        parts = _texts(raw.get("content"), ("input_text", "output_text", "text"))
        body = "\n".join(parts) if parts else str(raw.get("content") or "")
        return body, None if raw.get("success") is not False else 1
    text = raw if isinstance(raw, str) else ""
    if text.startswith("{"):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict) and "output" in data:
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return str(data.get("output") or ""), code if isinstance(code, int) else None
    match = _EXIT.search(text, 0, 400)
    code = int(match.group(1)) if match else None
    marker = text.find("Output:\n", 0, 600)
    return (text[marker + 8 :] if marker >= 0 else text), code


class CodexSource(Source):
    name = "codex"
    harness = "codex"
    # Records ``feed`` drops before reading their time, recognised from the line's first bytes
    # (Codex writes the timestamp first, maybe an ordinal, then the type; a quote inside a
    # string is escaped, so the pattern can only match the top-level fields).
    ignorable_head = re.compile(
        rb'\{"timestamp":"[^"\\]{0,64}",(?:"ordinal":\d{1,20},)?"type":"(?:'
        rb"(?:world_state|token_usage_record|compacted|thread_settings)\""
        rb'|event_msg","payload":\{"type":"(?:token_count|task_started|task_complete)")'
    )

    def __init__(self) -> None:
        compiled = _compiled.load("_codex_fast")
        if compiled is not None:
            self.fold_lines = functools.partial(compiled.fold_lines, self._parts)

    def discover(self, config: HarvestConfig) -> Iterator[Path | Unreadable]:
        home = config.home("codex", "CODEX_HOME", "~/.codex")
        for folder in (home / "sessions", home / "archived_sessions"):
            found: list[Path] = []
            problems: list[Unreadable] = []

            def report(
                error: OSError, problems: list[Unreadable] = problems, folder: Path = folder
            ) -> None:
                if not isinstance(error, FileNotFoundError):
                    problems.append(Unreadable.of(error.filename or folder, error))

            for root, dirs, files in os.walk(folder, onerror=report):
                dirs.sort()
                found.extend(Path(root, f) for f in files if f.endswith(".jsonl"))
            yield from problems
            yield from sorted(found)

    def session_key(self, state: FileState, path: Path) -> str:
        if state.session_id:
            return state.session_id
        match = _UUID_TAIL.search(path.stem)
        return match.group(1) if match else path.stem

    def feed(self, state: FileState, record: Any, config: HarvestConfig) -> Feed:
        kind = record.get("type")
        payload = record.get("payload")
        if kind in _IGNORED_TOP:
            return Feed.IGNORED
        if kind == "event_msg" and isinstance(payload, dict) and payload.get("type") not in _EVENTS:
            return Feed.IGNORED  # token counts, task markers, reasoning: most event lines
        if state.extra.get("sidechain") and not config.include_sidechains:
            return Feed.SIDECHAIN
        ts = parse_ts(record.get("timestamp"))
        if kind == "response_item" and isinstance(payload, dict):
            return self._item(state, payload, ts)
        if kind == "event_msg" and isinstance(payload, dict):
            return self._event(state, payload, ts)
        if kind == "session_meta" and isinstance(payload, dict):
            state.set_meta("session_id", payload.get("id") or payload.get("session_id"))
            state.set_meta("cwd", payload.get("cwd"))
            state.set_meta("forked_from", payload.get("forked_from_id"))
            git = payload.get("git")
            if isinstance(git, dict):
                state.set_meta("git_branch", git.get("branch"))
            if _is_subagent(payload):  # its cwd still scopes it to its project
                state.extra["sidechain"] = True
                if not config.include_sidechains:
                    return Feed.SIDECHAIN
            return Feed.USED
        if kind == "turn_context" and isinstance(payload, dict):
            state.set_meta("cwd", payload.get("cwd"))
            state.set_meta("model", payload.get("model"), overwrite=True)
            return Feed.USED
        if kind in _ITEM_TYPES or kind == "reasoning":  # the oldest rollouts: bare items
            return self._item(state, record, ts)
        if kind is None and "id" in record and "timestamp" in record:  # the oldest header line
            state.set_meta("session_id", record.get("id"))
            return Feed.USED
        return Feed.UNKNOWN

    def _parts(self, state: FileState, role: str, parts: list[str], ts: float | None) -> Feed:
        """A message the compiled fold read, as its text parts (``_texts``)."""
        text = _user_text(parts) if role == "user" else "\n".join(parts).strip()
        return self._message(state, role, text, ts)

    def _message(self, state: FileState, role: str, text: str, ts: float | None) -> Feed:
        """Append a message unless it mirrors the one just seen in the other channel.

        The state keeps a digest of the last message, never its text: the state is stored in
        the index, and only sealed (redacted) event text may be stored.
        """
        if not text:
            return Feed.IGNORED
        seen = [role, hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).hexdigest()]
        if state.extra.get("last") == seen:
            state.extra["last"] = None
            return Feed.IGNORED
        state.extra["last"] = seen
        if role == "user":
            state.add_user(ts, text)
        else:
            state.add(assistant(ts, text))
        return Feed.USED

    def _tool(self, state: FileState, event: list[Any]) -> Feed:
        state.extra["last"] = None
        if event[0] == "result":  # the output is mirrored too: keep (and redact) one copy
            if state.extra.get("resulted") == event[3]:
                event[4] = ""
            state.extra["resulted"] = event[3]
        state.add(event)
        return Feed.USED

    def _item(self, state: FileState, item: dict[str, Any], ts: float | None) -> Feed:
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            if role == "user":
                return self._message(
                    state, "user", _user_text(_texts(item.get("content"), ("input_text",))), ts
                )
            if role == "assistant":
                text = "\n".join(_texts(item.get("content"), ("output_text",))).strip()
                return self._message(state, "assistant", text, ts)
            return Feed.IGNORED
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            raw = item.get("arguments", item.get("input", item.get("action")))
            call_id = str(item.get("call_id") or item.get("id") or "")
            return self._tool(
                state, call(ts, call_id, str(item.get("name") or "shell"), _arguments(raw))
            )
        if kind in ("function_call_output", "custom_tool_call_output"):
            text, code = _output(item.get("output"))
            return self._tool(state, result(ts, str(item.get("call_id") or ""), text, None, code))
        if kind in ("reasoning", "web_search_call", "ghost_snapshot", "compaction"):
            return Feed.IGNORED
        return Feed.UNKNOWN

    def _event(self, state: FileState, event: dict[str, Any], ts: float | None) -> Feed:
        kind = event.get("type")
        if kind == "item_completed":
            return self._completed(state, event.get("item"), ts)
        if kind == "user_message":
            message = event.get("message")
            return self._message(
                state, "user", _user_text([message]) if isinstance(message, str) else "", ts
            )
        if kind == "agent_message":
            message = event.get("message")
            return self._message(
                state, "assistant", message.strip() if isinstance(message, str) else "", ts
            )
        if kind == "exec_command_end":
            output = (
                event.get("aggregated_output") or event.get("stdout") or event.get("stderr") or ""
            )
            code = event.get("exit_code")
            code = code if isinstance(code, int) else None
            return self._tool(
                state, result(ts, str(event.get("call_id") or ""), str(output), None, code)
            )
        if kind == "patch_apply_end":
            failed = event.get("success") is False
            output = event.get("stderr") if failed else event.get("stdout")
            return self._tool(
                state, result(ts, str(event.get("call_id") or ""), str(output or ""), failed)
            )
        if kind == "turn_aborted":
            state.add(interrupt(ts))
            return Feed.USED
        return Feed.IGNORED

    def _completed(self, state: FileState, item: Any, ts: float | None) -> Feed:
        if not isinstance(item, dict):
            return Feed.IGNORED
        kind = item.get("type")
        if kind == "UserMessage":
            return self._message(
                state, "user", _user_text(_texts(item.get("content"), ("text",))), ts
            )
        if kind == "AgentMessage":
            text = "\n".join(_texts(item.get("content"), ("Text", "text"))).strip()
            return self._message(state, "assistant", text, ts)
        if kind == "CommandExecution":
            call_id = str(item.get("id") or "")
            code = item.get("exit_code")
            state.add(
                call(ts, call_id, "exec_command", _arguments({"command": item.get("command")}))
            )
            output = str(item.get("aggregated_output") or "")
            return self._tool(
                state, result(ts, call_id, output, None, code if isinstance(code, int) else None)
            )
        return Feed.IGNORED


SOURCES.add("codex", CodexSource())
