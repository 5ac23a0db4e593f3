"""Copilot CLI sessions: ``<home>/session-state/<session id>/events.jsonl``.

``<home>`` is the explicit ``copilot`` home, else ``$COPILOT_HOME``, else ``~/.copilot``. Each
session directory holds an append-only event log (envelope ``{type, data, id, timestamp,
parentId, agentId?}``) and a small ``workspace.yaml`` whose ``cwd`` lets discovery skip other
projects' sessions without reading their logs. ``--resume`` / ``--continue`` append to the same
log, so a continued session stays one session.

Kept: ``user.message`` (typed text, not the model-facing ``transformedContent``),
``assistant.message`` text and ``toolRequests`` paired by ``toolCallId`` with
``tool.execution_complete`` (``success``, result or error text, shell exit code), ``abort`` and
``agent.interrupted`` as interruptions. Sub-agent events (``agentId``) are sidechain records;
hidden skill / inter-agent / autopilot prompts are not user requests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from skillopt_sleep.harvest._build import in_project
from skillopt_sleep.harvest._events import FileState, assistant, call, interrupt, parse_ts, result
from skillopt_sleep.harvest._registry import (
    SOURCES,
    Feed,
    HarvestConfig,
    Source,
    Unreadable,
    scan,
)

_IGNORED = frozenset(
    {
        "system.message",
        "system.notification",
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.turn_retry",
        "assistant.intent",
        "assistant.reasoning",
        "assistant.usage",
        "assistant.idle",
        "assistant.message_start",
        "tool.execution_start",
        "tool.execution_progress",
        "tool.execution_partial_result",
        "tool.shell_output",
        "tool.user_requested",
        "pending_messages.modified",
    }
)
# Families of bookkeeping events that never carry the conversation.
_IGNORED_PREFIXES = ("session.", "permission.", "hook.", "subagent.", "mcp", "model.call", "skill.")
_NOT_TYPED = ("skill-", "agent-")  # ``user.message.source`` of injected prompts
_TOOL_INPUT_FIELDS = ("command", "path", "file_path", "pattern", "query", "url", "prompt")
_WORKSPACE_FILE = "workspace.yaml"
# Copilot CLI 1.0 ends a shell result with this status line; ``shellExecution`` has the code.
_SHELL_STATUS = re.compile(r"\n?<shellId: [^>\n]*>\s*\Z")


def _tool_input(arguments: Any) -> str:
    if isinstance(arguments, dict):
        for field in _TOOL_INPUT_FIELDS:
            value = arguments.get(field)
            if isinstance(value, str):
                return value
    if isinstance(arguments, str):
        return arguments
    return orjson.dumps(arguments).decode("utf-8", "replace") if arguments is not None else ""


def _result_text(data: dict[str, Any]) -> str:
    outcome = data.get("result")
    if isinstance(outcome, dict):
        for field in ("content", "detailedContent"):
            value = outcome.get(field)
            if isinstance(value, str) and value:
                return value
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return ""


def workspace_cwd(session_dir: Path) -> str:
    """The ``cwd:`` of a session's ``workspace.yaml`` (a flat YAML map), or ``""``."""
    try:
        with open(session_dir / _WORKSPACE_FILE, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("cwd:"):
                    return line[4:].strip().strip("'\"")
    except OSError:
        pass
    return ""


class CopilotCliSource(Source):
    name = "copilot"
    harness = "copilot"
    # Skipped unparsed: the system prompt alone is most of a log's bytes.
    ignorable = tuple(
        f'{{"type":"{kind}"'.encode()
        for kind in (
            "system.message",
            "session.usage_record",
            "session.shutdown",
            "assistant.turn_start",
            "assistant.turn_end",
            "tool.execution_start",
        )
    )

    def discover(self, config: HarvestConfig) -> Iterator[Path | Unreadable]:
        root = config.home("copilot", "COPILOT_HOME", "~/.copilot") / "session-state"
        project = str(config.project)
        entries = scan(root)
        if not isinstance(entries, list):
            if entries is not None:
                yield entries
            return
        for entry in entries:
            try:
                if not entry.is_dir():
                    continue
            except OSError as exc:
                yield Unreadable.of(entry.path, exc)
                continue
            folder = Path(entry.path)
            cwd = workspace_cwd(folder)
            if cwd and not in_project(cwd, project):
                continue  # the log's own cwd still decides for sessions without workspace.yaml
            log = folder / "events.jsonl"
            if log.is_file():
                yield log

    def session_key(self, state: FileState, path: Path) -> str:
        return state.session_id or path.parent.name

    def feed(self, state: FileState, record: Any, config: HarvestConfig) -> Feed:
        kind = record.get("type")
        data = record.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            return Feed.UNKNOWN
        if record.get("agentId") and not config.include_sidechains:
            return Feed.SIDECHAIN
        ts = parse_ts(record.get("timestamp"))
        key = record.get("id")
        key = key if isinstance(key, str) and key else None  # kept in the state the index stores
        if kind in ("session.start", "session.resume", "session.context_changed"):
            return self._context(state, kind, data)
        if kind == "session.model_change":
            state.set_meta("model", data.get("newModel"), overwrite=True)
            return Feed.USED
        if kind == "user.message":
            return self._user(state, data, ts, key)
        if kind == "assistant.message":
            return self._assistant(state, data, ts, key)
        if kind == "tool.execution_complete":
            return self._complete(state, data, ts, key)
        if kind in ("abort", "agent.interrupted"):
            state.add(interrupt(ts, key))
            return Feed.USED
        if kind in _IGNORED or kind.startswith(_IGNORED_PREFIXES) or ".delta" in kind:
            return Feed.IGNORED
        return Feed.UNKNOWN

    @staticmethod
    def _context(state: FileState, kind: str, data: dict[str, Any]) -> Feed:
        if kind == "session.start":
            state.set_meta("session_id", data.get("sessionId"))
        state.set_meta("model", data.get("selectedModel"), overwrite=True)
        context = data.get("context") if kind != "session.context_changed" else data
        if isinstance(context, dict):
            state.set_meta("cwd", context.get("cwd"), overwrite=kind != "session.resume")
            state.set_meta("git_branch", context.get("branch"), overwrite=True)
        return Feed.USED

    @staticmethod
    def _user(state: FileState, data: dict[str, Any], ts: float | None, key: str | None) -> Feed:
        source = data.get("source")
        if data.get("isAutopilotContinuation") or (
            isinstance(source, str) and source.startswith(_NOT_TYPED)
        ):
            return Feed.IGNORED
        text = data.get("content")
        if not isinstance(text, str) or not text.strip():
            return Feed.IGNORED
        state.add_user(ts, text.strip(), key)
        return Feed.USED

    @staticmethod
    def _assistant(
        state: FileState, data: dict[str, Any], ts: float | None, key: str | None
    ) -> Feed:
        state.set_meta("model", data.get("model"), overwrite=True)
        text = data.get("content")
        if isinstance(text, str) and text.strip():
            state.add(assistant(ts, text, key))
        requests = data.get("toolRequests")
        for index, request in enumerate(requests if isinstance(requests, list) else ()):
            if isinstance(request, dict):
                state.add(
                    call(
                        ts,
                        str(request.get("toolCallId") or f"{key}:{index}"),
                        str(request.get("name") or ""),
                        _tool_input(request.get("arguments")),
                        f"{key}:{index}" if key else None,
                    )
                )
        return Feed.USED

    @staticmethod
    def _complete(
        state: FileState, data: dict[str, Any], ts: float | None, key: str | None
    ) -> Feed:
        shell = data.get("shellExecution")
        exit_code = shell.get("exitCode") if isinstance(shell, dict) else None
        text = _result_text(data)
        if isinstance(shell, dict):
            text = _SHELL_STATUS.sub("", text)
        state.add(
            result(
                ts,
                str(data.get("toolCallId") or ""),
                text,
                data.get("success") is False,
                exit_code if isinstance(exit_code, int) else None,
                key,
            )
        )
        return Feed.USED


SOURCES.add("copilot", CopilotCliSource())
