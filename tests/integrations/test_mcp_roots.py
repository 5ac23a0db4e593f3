"""Where a stdio server's project comes from when a call names none, with clients that get roots
wrong: one that declares roots but answers ``roots/list`` with an error (the call failed with
that protocol error, even with ``SKILLOPT_SLEEP_PROJECT`` set), one that never answers it (the
call waited forever), and ``python -m skillopt_sleep.mcp --project P`` (the option was ignored)."""

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

import anyio
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("fake_scheduler")]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",  # the server asks roots/list itself in this revision
        "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "roots", "version": "0"},
    },
}
STATUS = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status"}}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "SKILLOPT_SLEEP_HOME": str(tmp_path / "state"),
        "SKILLOPT_SLEEP_CONFIG": str(tmp_path / "none.toml"),
        **extra,
    }


NOT_FOUND = {"error": {"code": -32601, "message": "Method not found"}}


def _status(
    tmp_path: Path, roots_reply: dict[str, Any] | None, wait_s: float, **env: str
) -> dict[str, Any]:
    """``status`` without arguments from a client that declares roots and answers ``roots/list``
    with ``roots_reply`` (None: not at all); the server's answer, or {} after ``wait_s``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillopt_sleep.mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(tmp_path, **env),
        cwd=tmp_path,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: queue.Queue[str] = queue.Queue()
    lines = proc.stdout

    def read() -> None:
        for line in lines:
            out.put(line)

    threading.Thread(target=read, daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(INITIALIZE)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(STATUS)
        deadline = time.monotonic() + wait_s
        while True:
            message = json.loads(out.get(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("method") == "roots/list" and roots_reply is not None:
                send({"jsonrpc": "2.0", "id": message["id"], **roots_reply})
            elif message.get("id") == STATUS["id"]:
                return dict(message)
    except queue.Empty:
        return {}
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    "reply", [NOT_FOUND, {"result": {"roots": "not a list"}}], ids=["error", "malformed"]
)
def test_a_roots_error_falls_back_to_the_server_project(
    tmp_path: Path, reply: dict[str, Any]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    answer = _status(tmp_path, reply, 30, SKILLOPT_SLEEP_PROJECT=str(project))
    assert "result" in answer, answer
    assert not answer["result"].get("isError"), answer
    assert answer["result"]["structuredContent"]["project"] == str(project.resolve())


def test_roots_never_answered_is_a_tool_error_in_seconds_not_a_hang(tmp_path: Path) -> None:
    answer = _status(tmp_path, None, 20)
    assert answer, "no answer within 20 s"
    assert answer["result"]["isError"] and "no project" in answer["result"]["content"][0]["text"]


def test_the_module_takes_project_and_refuses_an_unknown_option(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skillopt_sleep.mcp", "--project", str(project)],
        env=_env(tmp_path),
        cwd=str(tmp_path),
    )

    async def go() -> Any:
        async with Client(params) as client:
            return await client.call_tool("status", {})

    result = anyio.run(go)
    assert not result.is_error, result.content
    assert result.structured_content["project"] == str(project.resolve())
    refused = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep.mcp", "--projcet", str(project)],
        env=_env(tmp_path),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2 and "--projcet" in refused.stderr
    assert refused.stdout == ""
