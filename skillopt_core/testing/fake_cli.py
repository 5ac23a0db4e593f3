"""Fake harness executables for argv-contract tests of the CLI backends.

:class:`FakeCli` writes a small Python program named like the real CLI (``claude``, ``codex``,
``copilot``; a ``.cmd`` shim on Windows) into a directory. Every run records its argv, stdin, cwd
(and what the cwd contained), and environment, then answers with the canned behaviour set by
:meth:`FakeCli.respond`: stdout, stderr, exit code, and files written to the paths that follow
given flags (``-o FILE`` for Codex, ``--usage-output-file FILE`` for Copilot); optionally it
sleeps (for timeouts) and spawns a long-lived child of its own (to check nothing is left behind).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_PROGRAM = r"""
import json, os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
name = os.path.splitext(os.path.basename(__file__))[0].removesuffix("_fake")
with open(os.path.join(here, name + ".behaviour.json"), encoding="utf-8") as f:
    behaviour = json.load(f)
stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
argv = sys.argv[1:]
record = {
    "argv": argv,
    "stdin": stdin,
    "cwd": os.getcwd(),
    "cwd_entries": sorted(os.listdir(os.getcwd())),
    "env": dict(os.environ),
}
if behaviour.get("spawn_child"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    record["child_pid"] = child.pid
for variable in behaviour.get("list_dirs_of_env", []):
    path = os.environ.get(variable, "")
    record.setdefault("dir_entries", {})[variable] = sorted(os.listdir(path)) if os.path.isdir(path) else None
with open(os.path.join(here, name + ".calls.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(record) + "\n")
if argv == ["--version"]:
    sys.stdout.write(behaviour.get("version", "0.0.0-fake\n"))
    sys.exit(behaviour.get("version_exit_code", 0))
for flag, content in behaviour.get("files", {}).items():
    if flag in argv and argv.index(flag) + 1 < len(argv):
        with open(argv[argv.index(flag) + 1], "w", encoding="utf-8") as f:
            f.write(content)
time.sleep(behaviour.get("sleep_s", 0))
sys.stdout.write(behaviour.get("stdout", ""))
sys.stderr.write(behaviour.get("stderr", ""))
sys.exit(behaviour.get("exit_code", 0))
"""


@dataclass(frozen=True)
class FakeCall:
    argv: list[str]
    stdin: str
    cwd: str
    cwd_entries: list[str]
    env: dict[str, str]
    dir_entries: dict[str, list[str] | None]
    child_pid: int | None = None

    def value_after(self, flag: str) -> str:
        return self.argv[self.argv.index(flag) + 1]


class FakeCli:
    """A recording stand-in for one harness CLI in ``directory`` (several CLIs may share it)."""

    def __init__(self, directory: Path, command: str) -> None:
        self.directory = directory
        self.command = command
        directory.mkdir(parents=True, exist_ok=True)
        if os.name == "nt":
            program = directory / f"{command}_fake.py"
            program.write_text(_PROGRAM, encoding="utf-8")
            self.path = directory / f"{command}.cmd"
            self.path.write_text(f'@"{sys.executable}" "{program}" %*\r\n', encoding="utf-8")
        else:
            self.path = directory / command
            self.path.write_text(f"#!{sys.executable}\n" + _PROGRAM, encoding="utf-8")
            self.path.chmod(0o755)
        self.respond()

    def respond(
        self,
        stdout: str = "",
        *,
        stderr: str = "",
        exit_code: int = 0,
        files: Mapping[str, str] | None = None,
        version: str = "9.9.9 (fake)\n",
        version_exit_code: int = 0,
        sleep_s: float = 0.0,
        list_dirs_of_env: tuple[str, ...] = (),
        spawn_child: bool = False,
    ) -> None:
        """Set what every following run answers."""
        behaviour: dict[str, Any] = {
            "stdout": stdout,
            "stderr": stderr,
            "exit_code": exit_code,
            "files": dict(files or {}),
            "version": version,
            "version_exit_code": version_exit_code,
            "sleep_s": sleep_s,
            "list_dirs_of_env": list(list_dirs_of_env),
            "spawn_child": spawn_child,
        }
        (self.directory / f"{self.command}.behaviour.json").write_text(
            json.dumps(behaviour), encoding="utf-8"
        )

    def calls(self) -> list[FakeCall]:
        log = self.directory / f"{self.command}.calls.jsonl"
        if not log.exists():
            return []
        records = [
            json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line
        ]
        return [
            FakeCall(
                argv=r["argv"],
                stdin=r["stdin"],
                cwd=r["cwd"],
                cwd_entries=r["cwd_entries"],
                env=r["env"],
                dir_entries=r.get("dir_entries", {}),
                child_pid=r.get("child_pid"),
            )
            for r in records
        ]

    def last_call(self) -> FakeCall:
        calls = [c for c in self.calls() if c.argv != ["--version"]]
        if not calls:
            raise AssertionError(f"the fake {self.command} was never called with a prompt")
        return calls[-1]
