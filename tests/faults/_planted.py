"""A transcript corpus for all three harnesses with every secret kind planted in every field.

Fields: user and assistant text, tool input, tool output, JSON escapes (``\\u0073k-proj-...`` on
disk, the raw secret once parsed), working directory, git branch, file names, and Codex lines
that are never mirrored (legacy rollouts, a rollout read mid-turn, an in-scope rollout without a
cwd). The secrets come from ``redaction._secrets`` (seeded, no real key lives here), plus a
password that is only a secret inside its URL.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from redaction._secrets import TOKENS

from skillopt_sleep.harvest.claude import slug

PROJECT = "/home/dev/webapp"
# Secrets planted inside a context (``{v}``) that makes them secret; the tests look for them alone.
IN_CONTEXT: dict[str, str] = {"redis-password-url": "redis://:{v}@cache:6379/0"}
SECRETS: dict[str, str] = {**TOKENS, "redis-password-url": "Kp3mN8bV2cX7zL5q"}
# Secrets that can stand in a path component or a branch name (no "/" or "." in them).
PATH_SAFE = {
    k: v
    for k, v in SECRETS.items()
    if k not in IN_CONTEXT and "/" not in v and "." not in v and "+" not in v
}
ALL = " ".join(IN_CONTEXT.get(k, "{v}").format(v=v) for k, v in SECRETS.items())


def everything_under(root: Path) -> list[tuple[str, bytes]]:
    """Every folder and file under ``root``, as (where, what to search): a file's path and bytes,
    a folder's path (names are stored data too)."""
    found = []
    for folder, _, files in os.walk(root):
        found.append((folder, folder.encode()))
        for name in files:
            path = Path(folder, name)
            found.append((str(path), str(path).encode() + b"\n" + path.read_bytes()))
    return found


def _escaped(line: str) -> str:
    """JSON text with the first character of every secret written as a \\u escape."""
    for secret in SECRETS.values():
        line = line.replace(secret, f"\\u{ord(secret[0]):04x}{secret[1:]}")
    return line


def _write(path: Path, records: Iterable[dict[str, Any]], escape_from: int = 10**9) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for number, record in enumerate(records):
        line = json.dumps(record)
        lines.append(_escaped(line) if number >= escape_from else line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ts(second: int) -> str:
    return f"2026-11-20T10:00:{second:02d}Z"


def claude(home: Path) -> int:
    """One Claude Code session per path-safe secret (cwd and branch carry it), plus one with
    every secret in every field and its second half JSON-escaped. Returns the session count."""
    count = 0
    for number, (kind, secret) in enumerate(sorted(PATH_SAFE.items())):
        cwd = f"{PROJECT}/tmp-{secret}"
        _write(
            home / "projects" / slug(cwd) / f"0000{number:04d}-0000-4000-8000-000000000000.jsonl",
            _claude_records(f"0000{number:04d}-0000-4000-8000-000000000000", cwd, secret, kind),
        )
        count += 1
    sid = "11111111-1111-4111-8111-111111111111"
    records = _claude_records(sid, PROJECT, ALL, "all") + _claude_records(
        sid, PROJECT, ALL, "escaped", start=30
    )
    _write(home / "projects" / "-home-dev-webapp" / f"{sid}.jsonl", records, escape_from=6)
    return count + 1


def _claude_records(
    sid: str, cwd: str, secret: str, tag: str, start: int = 0
) -> list[dict[str, Any]]:
    base = {"sessionId": sid, "cwd": cwd, "gitBranch": f"fix/{secret.split()[0]}"}
    return [
        {
            **base,
            "type": "user",
            "uuid": f"{tag}-u1",
            "timestamp": _ts(start + 1),
            "message": {"role": "user", "content": f"deploy with {secret} ({tag})"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"{tag}-a1",
            "timestamp": _ts(start + 2),
            "message": {
                "role": "assistant",
                "model": "claude-test",
                "content": [
                    {"type": "text", "text": f"I will use {secret}"},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{tag}",
                        "name": "Bash",
                        "input": {"command": f"curl -H 'X: {secret}' https://example.test"},
                    },
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": f"{tag}-r1",
            "timestamp": _ts(start + 3),
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{tag}",
                        "content": f"echo {secret}",
                    },
                    {"type": "text", "text": f"also {secret}"},
                ],
            },
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"{tag}-a2",
            "timestamp": _ts(start + 4),
            "message": {"role": "assistant", "content": f"done: {secret}"},
        },
        {
            **base,
            "type": "user",
            "uuid": f"{tag}-u2",
            "timestamp": _ts(start + 5),
            "message": {"role": "user", "content": f"no, that's wrong, rotate {secret}"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": f"{tag}-a3",
            "timestamp": _ts(start + 6),
            "message": {"role": "assistant", "content": [{"type": "text", "text": secret}]},
        },
    ]


def codex(home: Path) -> int:
    """Codex rollouts: current shape (cwd and branch carry a secret), a legacy one (bare items,
    no cwd), one read mid-turn (the user message before its mirror line), and one whose file
    name carries a secret. Returns the session count that lands in the project."""
    day = home / "sessions" / "2026" / "11" / "20"
    count = 0
    for number, (_, secret) in enumerate(sorted(PATH_SAFE.items())):
        sid = f"0000{number:04d}-0000-4000-9000-000000000000"
        meta = {
            "id": sid,
            "cwd": f"{PROJECT}/tmp-{secret}",
            "git": {"branch": f"fix/{secret}"},
        }
        _write(day / f"rollout-2026-11-20T10-00-{number:02d}-{sid}.jsonl", _codex(meta, secret))
        count += 1
    full = {"id": "22222222-2222-4222-9222-222222222222", "cwd": PROJECT}
    _write(day / "rollout-2026-11-20T11-00-00-22222222-2222-4222-9222-222222222222.jsonl",
           _codex(full, ALL), escape_from=4)  # fmt: skip
    midturn = {"id": "33333333-3333-4333-9333-333333333333", "cwd": PROJECT}
    _write(
        day / "rollout-2026-11-20T12-00-00-33333333-3333-4333-9333-333333333333.jsonl",
        _codex(meta=midturn, secret=ALL)[:3],  # the response_item user message, no mirror yet
    )
    secret_name = PATH_SAFE["github-pat-classic"]
    _write(day / f"rollout-2026-11-20T13-00-00-{secret_name}.jsonl", _codex({"cwd": PROJECT}, ALL))
    _write(  # legacy: bare items, a header line without cwd
        home / "sessions" / "legacy" / "rollout-legacy-44444444-4444-4444-9444-444444444444.jsonl",
        [
            {"id": "44444444-4444-4444-9444-444444444444", "timestamp": _ts(0)},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"legacy {ALL}"}],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"legacy reply {ALL}"}],
            },
        ],
    )
    return count + 3


def _codex(meta: dict[str, Any], secret: str) -> list[dict[str, Any]]:
    def item(second: int, payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
        return {"timestamp": _ts(second), "type": kind, "payload": payload}

    return [
        {"timestamp": _ts(0), "type": "session_meta", "payload": meta},
        {"timestamp": _ts(0), "type": "turn_context", "payload": {"model": "gpt-test"}},
        item(
            1,
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"ship it with {secret}"}],
            },
        ),
        item(1, {"type": "user_message", "message": f"ship it with {secret}"}, "event_msg"),
        item(
            2,
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "call_1",
                "arguments": json.dumps({"command": ["bash", "-lc", f"echo {secret}"]}),
            },
        ),
        item(
            3,
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": json.dumps({"output": secret, "metadata": {"exit_code": 1}}),
            },
        ),
        item(4, {"type": "agent_message", "message": f"unmirrored reply {secret}"}, "event_msg"),
        item(5, {"type": "user_message", "message": f"unmirrored ask {secret}"}, "event_msg"),
        item(
            6,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"last words {secret}"}],
            },
        ),
    ]


def copilot(home: Path) -> int:
    """Copilot CLI sessions: cwd and branch in ``session.start`` and ``workspace.yaml``."""
    count = 0
    for number, (_, secret) in enumerate(sorted(PATH_SAFE.items())):
        sid = f"0000{number:04d}-0000-4000-a000-000000000000"
        _copilot_session(home, sid, f"{PROJECT}/tmp-{secret}", secret, secret)
        count += 1
    _copilot_session(home, "55555555-5555-4555-a555-555555555555", PROJECT, "main", ALL)
    return count + 1


def _copilot_session(home: Path, sid: str, cwd: str, branch: str, secret: str) -> None:
    folder = home / "session-state" / sid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "workspace.yaml").write_text(
        f"id: {sid}\ncwd: {cwd}\nbranch: fix/{branch}\nname: {secret}\n", encoding="utf-8"
    )

    def event(second: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"type": kind, "data": data, "id": f"{sid}-{second}", "timestamp": _ts(second)}

    _write(
        folder / "events.jsonl",
        [
            event(
                0,
                "session.start",
                {
                    "sessionId": sid,
                    "selectedModel": "gpt-test",
                    "context": {"cwd": cwd, "branch": f"fix/{branch}"},
                },
            ),
            event(1, "user.message", {"content": f"use {secret}", "messageId": "m1"}),
            event(
                2,
                "assistant.message",
                {
                    "messageId": "m2",
                    "content": f"sure {secret}",
                    "toolRequests": [
                        {
                            "toolCallId": "call_1",
                            "name": "bash",
                            "arguments": {"command": f"echo {secret}"},
                        }
                    ],
                },
            ),
            event(
                3,
                "tool.execution_start",
                {"toolCallId": "call_1", "toolName": "bash", "arguments": {"command": secret}},
            ),
            event(
                4,
                "tool.execution_complete",
                {"toolCallId": "call_1", "success": True, "result": {"content": secret}},
            ),
            event(5, "assistant.message", {"messageId": "m3", "content": f"done {secret}"}),
        ],
        escape_from=3,
    )


def plant(root: Path) -> dict[str, Path]:
    """Write the three homes under ``root``; returns them by harness."""
    homes = {"claude": root / ".claude", "codex": root / ".codex", "copilot": root / ".copilot"}
    claude(homes["claude"])
    codex(homes["codex"])
    copilot(homes["copilot"])
    return homes
