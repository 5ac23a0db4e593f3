"""Write simulated sessions to disk exactly as the harnesses do, so the real harvesters read them.

Record shapes are copied from the genuine transcripts under ``tests/data/transcripts`` (Claude Code
2.1, Codex 0.169, Copilot CLI 1.0): the same record types, the same keys, the same file layout:

- Claude Code: ``.claude/projects/<cwd with non-alphanumerics as '-'>/<session>.jsonl``
- Codex: ``.codex/sessions/YYYY/MM/DD/rollout-<local time>-<session>.jsonl``
- Copilot CLI: ``.copilot/session-state/<session>/events.jsonl`` plus ``workspace.yaml``

``tests/experiments/test_persona_transcripts.py`` checks every written record against the fixtures' shapes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from experiments.personas.model import SimSession

EPOCH = datetime(2026, 9, 1, tzinfo=timezone.utc)
"""Day 0 of every persona (fixed, so runs are reproducible)."""

CLAUDE_VERSION = "2.1.197"
CODEX_VERSION = "0.169.0"
COPILOT_VERSION = "1.0.102"


def _uuid(*parts: object) -> str:
    h = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _clock(session: SimSession) -> Iterator[datetime]:
    """Timestamps for a session's records, a few seconds apart."""
    moment = EPOCH + timedelta(seconds=session.start)
    while True:
        yield moment
        moment += timedelta(seconds=3, milliseconds=137)


def claude_folder(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def claude_records(session: SimSession, cwd: str) -> list[dict[str, Any]]:
    clock = _clock(session)
    common = {
        "userType": "external",
        "entrypoint": "sdk-cli",
        "cwd": cwd,
        "sessionId": session.id,
        "version": CLAUDE_VERSION,
        "gitBranch": "main",
    }
    records: list[dict[str, Any]] = []
    parent: str | None = None
    prompt = ""
    for n, turn in enumerate(session.turns):
        uid = _uuid(session.id, n)
        ts = _ts(next(clock))
        if turn.role == "user":
            prompt = _uuid(session.id, n, "prompt")
            records.append(
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": ts,
                    "sessionId": session.id,
                    "content": turn.text,
                }
            )
            records.append(
                {
                    "type": "queue-operation",
                    "operation": "dequeue",
                    "timestamp": ts,
                    "sessionId": session.id,
                }
            )
            records.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "promptId": prompt,
                    "type": "user",
                    "message": {"role": "user", "content": turn.text},
                    "uuid": uid,
                    "timestamp": ts,
                    "permissionMode": "default",
                    "promptSource": "sdk",
                    **common,
                }
            )
        else:
            records.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "message": {
                        "id": f"msg_{n}",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-opus-4-8",
                        "content": [{"type": "text", "text": turn.text}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 5},
                        "stop_details": None,
                    },
                    "type": "assistant",
                    "uuid": uid,
                    "timestamp": ts,
                    **common,
                }
            )
            records.append(
                {
                    "type": "last-prompt",
                    "lastPrompt": session.turns[n - 1].text if n else "",
                    "leafUuid": uid,
                    "sessionId": session.id,
                }
            )
        parent = uid
    return records


def codex_records(session: SimSession, cwd: str) -> list[dict[str, Any]]:
    clock = _clock(session)
    start = _ts(next(clock))
    records: list[dict[str, Any]] = [
        {
            "timestamp": start,
            "type": "session_meta",
            "payload": {
                "session_id": session.id,
                "id": session.id,
                "timestamp": start,
                "cwd": cwd,
                "runtime_workspace_roots": [cwd],
                "originator": "codex_exec",
                "cli_version": CODEX_VERSION,
                "source": "exec",
                "thread_source": "user",
                "model_provider": "openai",
            },
        }
    ]
    turn_id = ""
    for n, turn in enumerate(session.turns):
        ts = _ts(next(clock))
        if turn.role == "user":
            turn_id = _uuid(session.id, n, "turn")
            records += [
                {
                    "timestamp": ts,
                    "type": "event_msg",
                    "payload": {
                        "type": "task_started",
                        "turn_id": turn_id,
                        "root_turn_id": turn_id,
                    },
                },
                {
                    "timestamp": ts,
                    "type": "turn_context",
                    "payload": {
                        "turn_id": turn_id,
                        "cwd": cwd,
                        "approval_policy": "never",
                        "model": "gpt-5.5",
                    },
                },
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "id": f"msg_{_uuid(session.id, n)}",
                        "role": "user",
                        "content": [{"type": "input_text", "text": turn.text}],
                    },
                },
                {
                    "timestamp": ts,
                    "type": "event_msg",
                    "payload": {
                        "type": "item_completed",
                        "thread_id": session.id,
                        "turn_id": turn_id,
                        "item": {
                            "type": "UserMessage",
                            "id": _uuid(session.id, n, "item"),
                            "content": [{"type": "text", "text": turn.text, "text_elements": []}],
                        },
                    },
                },
            ]
        else:
            records += [
                {
                    "timestamp": ts,
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "status": "completed",
                        "id": f"msg_{n}",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                    },
                },
                {
                    "timestamp": ts,
                    "type": "event_msg",
                    "payload": {
                        "type": "task_complete",
                        "turn_id": turn_id,
                        "root_turn_id": turn_id,
                        "last_agent_message": turn.text,
                    },
                },
            ]
    return records


def copilot_records(session: SimSession, cwd: str) -> list[dict[str, Any]]:
    clock = _clock(session)
    start = _ts(next(clock))
    parent: str | None = None
    records: list[dict[str, Any]] = []

    def add(kind: str, data: dict[str, Any], ts: str) -> None:
        nonlocal parent
        uid = _uuid(session.id, len(records), kind)
        records.append({"type": kind, "data": data, "id": uid, "timestamp": ts, "parentId": parent})
        parent = uid

    add(
        "session.start",
        {
            "sessionId": session.id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": COPILOT_VERSION,
            "startTime": start,
            "selectedModel": "gpt-4.1",
            "context": {"cwd": cwd, "gitRoot": cwd, "branch": "main"},
        },
        start,
    )
    message = ""
    for n, turn in enumerate(session.turns):
        ts = _ts(next(clock))
        if turn.role == "user":
            message = _uuid(session.id, n, "message")
            add(
                "user.message",
                {
                    "content": turn.text,
                    "transformedContent": f"<current_datetime>{ts}</current_datetime>\n\n{turn.text}",
                    "messageId": message,
                    "interactionId": _uuid(session.id, n, "interaction"),
                    "turnId": "0",
                },
                ts,
            )
        else:
            add("assistant.turn_start", {"turnId": "0"}, ts)
            add(
                "assistant.message",
                {
                    "messageId": _uuid(session.id, n, "reply"),
                    "originatingMessageId": message,
                    "model": "gpt-4.1",
                    "content": turn.text,
                    "toolRequests": [],
                    "turnId": "0",
                },
                ts,
            )
            add("assistant.turn_end", {"turnId": "0"}, ts)
    return records


def _jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def session_path(home: Path, session: SimSession, cwd: str) -> Path:
    if session.harness == "codex":
        moment = EPOCH + timedelta(seconds=session.start)
        return (
            home
            / ".codex"
            / "sessions"
            / moment.strftime("%Y/%m/%d")
            / f"rollout-{moment.strftime('%Y-%m-%dT%H-%M-%S')}-{session.id}.jsonl"
        )
    if session.harness == "copilot":
        return home / ".copilot" / "session-state" / session.id / "events.jsonl"
    return home / ".claude" / "projects" / claude_folder(cwd) / f"{session.id}.jsonl"


def write_sessions(home: Path, dev_root: Path, sessions: Iterable[SimSession]) -> list[Path]:
    """Write each session under ``home`` in its harness's format; projects live in ``dev_root``."""
    written: list[Path] = []
    for session in sessions:
        project = dev_root / session.project
        project.mkdir(parents=True, exist_ok=True)
        cwd = str(project)
        path = session_path(home, session, cwd)
        path.parent.mkdir(parents=True, exist_ok=True)
        if session.harness == "codex":
            records = codex_records(session, cwd)
        elif session.harness == "copilot":
            records = copilot_records(session, cwd)
            created = _ts(EPOCH + timedelta(seconds=session.start))
            (path.parent / "workspace.yaml").write_text(
                f"id: {session.id}\ncwd: {cwd}\ngit_root: {cwd}\nbranch: main\n"
                f"client_name: github/cli\nname: {json.dumps(session.turns[0].text[:60])}\n"
                f"created_at: {created}\nupdated_at: {created}\n",
                encoding="utf-8",
            )
        else:
            records = claude_records(session, cwd)
        path.write_text(_jsonl(records), encoding="utf-8")
        written.append(path)
    return written
