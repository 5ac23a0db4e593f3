"""The stdio MCP server given lines that are not JSON-RPC: it answers the JSON-RPC error and serves on.

Raw lines on the server's stdin (``mcp.Client`` would never send them), as a broken client would.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",  # a handshake-era revision, as clients send today
        "capabilities": {},
        "clientInfo": {"name": "faults", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _answers(tmp_path: Path, lines: list[str], last_id: int) -> list[dict[str, Any]]:
    """Write ``lines`` to a fresh stdio server; every message it writes until it answers
    ``last_id`` (or a 30 s deadline)."""
    env = {
        **os.environ,
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
        "SKILLOPT_SLEEP_CONFIG": str(tmp_path / "none.toml"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillopt_sleep.mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [out.put(line) for line in proc.stdout], daemon=True).start()
    answers: list[dict[str, Any]] = []
    try:
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while not any(a.get("id") == last_id for a in answers):
            answers.append(json.loads(out.get(timeout=max(0.1, deadline - time.monotonic()))))
    except queue.Empty:
        pass
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return answers


def _errors(answers: list[dict[str, Any]]) -> list[tuple[Any, int, str]]:
    return [(a["id"], a["error"]["code"], a["error"]["message"]) for a in answers if "error" in a]


def test_garbage_line_gets_parse_error_and_later_requests_are_answered(tmp_path: Path) -> None:
    lines = [
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        "this is {not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    answers = _answers(tmp_path, lines, last_id=2)
    assert _errors(answers) == [(None, -32700, "Parse error")]
    parse_error = next(a for a in answers if "error" in a)
    assert parse_error == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    tools = next(a for a in answers if a.get("id") == 2)
    assert {"status", "adopt"} <= {t["name"] for t in tools["result"]["tools"]}


def test_json_that_is_no_message_gets_invalid_request(tmp_path: Path) -> None:
    lines = [
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        json.dumps({"jsonrpc": "2.0", "method": 42}),
        "[1, 2]",
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ]
    answers = _answers(tmp_path, lines, last_id=3)
    assert _errors(answers) == [(None, -32600, "Invalid Request")] * 2
    assert any(a.get("id") == 3 and "result" in a for a in answers)


def test_garbage_before_initialize_is_answered_and_the_handshake_still_works(
    tmp_path: Path,
) -> None:
    lines = ["\x00garbage", json.dumps(INITIALIZE)]
    answers = _answers(tmp_path, lines, last_id=1)
    assert _errors(answers) == [(None, -32700, "Parse error")]
    assert any(a.get("id") == 1 and "result" in a for a in answers)
