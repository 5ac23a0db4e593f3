"""Claude Code transcripts: ``<home>/projects/<slug>/<session>.jsonl``.

``<home>`` is the explicit ``claude`` home, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``. The
slug is the cwd with every non-alphanumeric character replaced by ``-``; it is lossy, so it only
narrows the directories read and the recorded ``cwd`` decides the scope. A continued session
(``--continue`` / ``--resume``) keeps its ``sessionId``: records are merged by it and repeated
records de-duplicated by ``uuid``. A fork (``--fork-session``) is a new session whose copied
records name their parent (``forkedFrom``): the session's ``forked_from``. Sub-agent files and
``isSidechain`` records are excluded unless ``include_sidechains``. Bash exit codes are recovered from the result (see ``_exit_code``);
``gitBranch: "HEAD"`` (no repository, or a detached head) is no branch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from skillopt_core.markers import is_engine_text
from skillopt_sleep.harvest import _compiled
from skillopt_sleep.harvest._events import (
    Event,
    FileState,
    assistant,
    call,
    interrupt,
    parse_ts,
    result,
    user,
)
from skillopt_sleep.harvest._registry import (
    SOURCES,
    Feed,
    HarvestConfig,
    Source,
    Unreadable,
    is_file,
    scan,
)

_IGNORED_TYPES = frozenset(
    {
        "system",
        "summary",
        "file-history-snapshot",
        "attachment",
        "queue-operation",
        "last-prompt",
        "mode",
        "permission-mode",
        "progress",
        "custom-title",
        "ai-title",
        "tag",
        "agent-name",
        "pr-link",
        "worktree-state",
    }
)
_INTERRUPTED = "[Request interrupted by user"
_HARNESS_NOISE = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>")
_COMMAND_WRAPPER = ("<command-message>", "<command-name>")
_COMMAND_TAG = re.compile(r"<command-(name|args)>(.*?)</command-\1>", re.DOTALL)
_SLUG = re.compile(r"[^A-Za-z0-9]")
_EXIT_CODE = re.compile(r"Exit code (-?\d+)\b")


_FAST = _compiled.load("_claude_fast")  # the C fold, or None; it is given `_typed_prompt` below


def slug(path: str) -> str:
    return _SLUG.sub("-", path)


def _text_of(content: Any) -> str:
    """Text of a message or tool-result content: a string or a list of ``{type: text}`` blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def _tool_input(name: str, data: Any) -> str:
    if isinstance(data, dict):
        for field in ("command", "file_path", "pattern", "url", "query", "prompt"):
            value = data.get(field)
            if isinstance(value, str):
                return value
    return orjson.dumps(data).decode("utf-8", "replace") if data is not None else ""


class ClaudeSource(Source):
    name = "claude"
    harness = "claude"
    ignorable = (
        b'{"type":"queue-operation"',
        b'{"type":"file-history-snapshot"',
        b'{"type":"last-prompt"',
    )
    fold_lines = getattr(_FAST, "fold_lines", None)

    def discover(self, config: HarvestConfig) -> Iterator[Path | Unreadable]:
        projects = config.home("claude", "CLAUDE_CONFIG_DIR", "~/.claude") / "projects"
        wanted = slug(str(config.project))
        folders = scan(projects)
        if not isinstance(folders, list):
            if folders is not None:
                yield folders
            return
        for folder in folders:
            if not (folder.name == wanted or folder.name.startswith(wanted + "-")):
                continue
            yield from self._files(Path(folder.path), config.include_sidechains)

    @staticmethod
    def _files(folder: Path, sidechains: bool) -> Iterator[Path | Unreadable]:
        entries = scan(folder)
        if not isinstance(entries, list):
            if entries is not None:
                yield entries
            return
        for entry in entries:
            if entry.name.endswith(".jsonl"):
                regular = is_file(entry)  # one looping link must not hide its siblings
                if isinstance(regular, Unreadable):
                    yield regular
                elif regular and (sidechains or not entry.name.startswith("agent-")):
                    yield Path(entry.path)
            elif sidechains and entry.is_dir():
                yield from sorted((Path(entry.path) / "subagents").glob("agent-*.jsonl"))

    def feed(self, state: FileState, record: Any, config: HarvestConfig) -> Feed:
        """Hot: once per record, so lookups are local and the common shapes are inlined."""
        get = record.get
        kind = get("type")
        if kind != "assistant" and kind != "user":
            return Feed.IGNORED if kind in _IGNORED_TYPES else Feed.UNKNOWN
        if get("isSidechain") and not config.include_sidechains:
            return Feed.SIDECHAIN
        meta = state.meta  # every record repeats these, the first one sets them
        if not meta.get("session_id"):
            state.set_meta("session_id", get("sessionId"))
        if not meta.get("cwd"):
            state.set_meta("cwd", get("cwd"))
        fork = get("forkedFrom")  # a record a fork copied from its parent session
        if isinstance(fork, dict):
            state.set_meta("forked_from", fork.get("sessionId"))
        branch = get("gitBranch")
        if branch and branch != "HEAD" and branch != meta.get("git_branch"):
            meta["git_branch"] = branch
        message = get("message")
        if not isinstance(message, dict):
            return Feed.IGNORED
        ts = parse_ts(get("timestamp"))
        uid = get("uuid")
        key = uid if isinstance(uid, str) and uid else None
        if kind == "assistant":
            return self._assistant(state, message, ts, key)
        if get("isMeta") or get("isCompactSummary") or get("isVisibleInTranscriptOnly"):
            return Feed.IGNORED
        return self._user(state, message.get("content"), ts, key, get("toolUseResult"))

    @staticmethod
    def _assistant(
        state: FileState, message: dict[str, Any], ts: float | None, key: str | None
    ) -> Feed:
        model = message.get("model")
        if isinstance(model, str) and model and not model.startswith("<"):
            state.meta["model"] = model
        content = message.get("content")
        if isinstance(content, str):
            state.add(assistant(ts, content, key))
            return Feed.USED
        if not isinstance(content, list):
            return Feed.USED
        add = state.events.append
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                part = f"{key}:{index}" if key else None
                add(assistant(ts, str(block.get("text") or ""), part))
            elif kind == "tool_use":
                part = f"{key}:{index}" if key else None
                name = str(block.get("name") or "")
                tool_input = _tool_input(name, block.get("input"))
                add(call(ts, str(block.get("id") or ""), name, tool_input, part))
        return Feed.USED

    @staticmethod
    def _user(
        state: FileState, content: Any, ts: float | None, key: str | None, outcome: Any = None
    ) -> Feed:
        if isinstance(content, str):  # a typed prompt: the common shape
            _add_prompt(state, _typed_prompt(content, ts, key))
            return Feed.USED
        texts: list[str] = []
        blocks = content if isinstance(content, list) else [content]
        for index, block in enumerate(blocks):
            if isinstance(block, str):
                if block:
                    texts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind == "tool_result":
                    part = f"{key}:{index}" if key else None
                    excerpt = _text_of(block.get("content"))
                    error = bool(block.get("is_error"))
                    code = _exit_code(excerpt, error, outcome if len(blocks) == 1 else None)
                    state.add(
                        result(ts, str(block.get("tool_use_id") or ""), excerpt, error, code, part)
                    )
                    if excerpt.startswith(_INTERRUPTED):
                        state.add(interrupt(ts, f"{part}:i" if part else None))
                elif kind == "text":
                    value = block.get("text")
                    if value:
                        texts.append(str(value))
        text = "\n".join(texts).strip() if texts else ""
        if not text:
            return Feed.USED if blocks else Feed.IGNORED
        _add_prompt(state, _typed_prompt(text, ts, key))
        return Feed.USED


def _typed_prompt(text: str, ts: float | None, key: str | None) -> tuple[Event | None, bool]:
    """What the user's text adds: its event (None: nothing) and whether it marks the engine's own
    session (checked on the full text, before clipping). The C fold calls it for a typed prompt
    (see ``set_prompt``), so this stays the one copy of the rules; it changes nothing itself."""
    text = text.strip()
    if not text:
        return None, False
    if text.startswith(_INTERRUPTED):
        return interrupt(ts, key), False
    if text.startswith(_HARNESS_NOISE):
        return None, False
    typed = _as_typed(text)
    return user(ts, typed, key), is_engine_text(typed)


def _add_prompt(state: FileState, found: tuple[Event | None, bool]) -> None:
    """``_typed_prompt``'s finding applied as the C fold applies it: the engine mark, then the
    event."""
    event, engine = found
    if engine:
        state.meta["engine"] = True
    if event is not None:
        state.add(event)


def _exit_code(excerpt: str, error: bool, outcome: Any) -> int | None:
    """A shell command's exit code, which Claude Code records only as text.

    A failed ``Bash`` call's result starts ``Exit code N``; a successful one carries no code, but
    its ``toolUseResult`` (the record's, when the record holds this one result) is Bash's
    ``{stdout, stderr, interrupted}``, so it exited 0 unless it was interrupted or still runs in
    the background.
    """
    if error:
        match = _EXIT_CODE.match(excerpt)
        return int(match.group(1)) if match else None
    if (
        isinstance(outcome, dict)
        and "stdout" in outcome
        and outcome.get("interrupted") is False
        and not outcome.get("backgroundTaskId")
    ):
        return 0
    return None


def _as_typed(text: str) -> str:
    """A slash command as the user typed it (``/review 12``), not Claude Code's record of it
    (``<command-message>review</command-message> <command-name>/review</command-name>
    <command-args>12</command-args>``); any other text as it is."""
    if not text.startswith(_COMMAND_WRAPPER):
        return text
    tags = dict(_COMMAND_TAG.findall(text))
    name = tags.get("name", "").strip()
    return f"{name} {tags.get('args', '').strip()}".strip() if name else text


if _FAST is not None:
    _FAST.set_prompt(_typed_prompt)
SOURCES.add("claude", ClaudeSource())
