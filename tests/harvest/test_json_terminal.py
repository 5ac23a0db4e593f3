"""`--json` on the terminal: a transcript's C1 controls (U+009B starts an escape sequence) and bidi
overrides (U+202E) reached it raw through `harvest --json` and `mine --json`; the tables escaped
them. Written as ``\\uXXXX`` escapes they are the same JSON to any reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_sleep._display import displayable_json, displayable_json_bytes
from skillopt_sleep.cli import app
from tests.harvest._fixtures import WEBAPP, write_claude_session

HOSTILE = "fix the bug \u202egnp.exe\u202c please \x9b31m \u2066x\u2069 \u061c \u4e2d \u00e9"
RAW = ("\x9b", "\u202e", "\u202c", "\u2066", "\u2069", "\u061c")


def test_the_escapes_are_the_same_json_and_leave_other_text_alone() -> None:
    text = json.dumps({"a": HOSTILE, "b": "\\\u202e"}, ensure_ascii=False)
    for safe in (displayable_json(text), displayable_json_bytes(text.encode()).decode()):
        assert not any(c in safe for c in RAW) and "\u4e2d" in safe and "\u00e9" in safe
        assert json.loads(safe) == json.loads(text)


def _on_a_terminal(argv: list[str]) -> str:
    """What ``argv`` prints with its standard output on a pseudo-terminal."""
    import pty  # POSIX only

    main, child = pty.openpty()
    with subprocess.Popen(argv, stdout=child, stderr=subprocess.PIPE) as process:
        os.close(child)
        out = bytearray()
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not chunk:
                break
            out += chunk
        os.close(main)
        assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
    return out.decode("utf-8").replace("\r\n", "\n")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_harvest_json_prints_no_control_a_terminal_acts_on(tmp_path: Path) -> None:
    home = tmp_path / "claude"
    write_claude_session(home, [("user", HOSTILE), ("assistant", "done")])
    argv = [sys.executable, "-m", "skillopt_sleep", "harvest", "-p", WEBAPP, "--json",
            "--state-dir", str(tmp_path / "state"), "-s", "claude", "--claude-home", str(home)]  # fmt: skip
    shown = _on_a_terminal(argv)
    assert not any(c in shown for c in RAW)
    (session,) = json.loads(shown)
    assert HOSTILE in json.dumps(session, ensure_ascii=False)
    piped = CliRunner().invoke(app, argv[3:])  # a program reading a pipe gets the same JSON
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.stdout) == json.loads(shown)
