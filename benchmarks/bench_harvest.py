"""Harvest benchmark: cold harvest vs a bare ``json.loads`` pass, a no-change re-run, peak memory.

    .venv/bin/python benchmarks/bench_harvest.py [--sessions 3000] [--keep DIR]

Generates a corpus of Claude Code and Codex sessions shaped like the genuine fixtures (several
turns, paired tool calls with multi-KB outputs, attachments, injected preambles, token records,
the odd planted secret), then reports in one run:

* cold harvest time (redaction, pairing, index writes included) and the bare parse pass over the
  same files, and their ratio (target <= 2x);
* a second harvest with nothing new (target <= 5% of cold);
* a harvest after appending a turn to 5% of the sessions (informative);
* peak RSS of the harvesting process (target < 500 MB).

Each harvest runs in a fresh subprocess so its memory is measured alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECT = "/home/dev/webapp"
WORDS = [
    "the",
    "test",
    "login",
    "session",
    "cookie",
    "export",
    "json",
    "flag",
    "fix",
    "failing",
    "auth",
    "user",
    "token",
    "request",
    "handler",
    "module",
    "import",
    "path",
    "config",
    "value",
    "error",
    "retry",
    "build",
    "deploy",
    "docs",
    "readme",
    "function",
    "class",
    "return",
    "assert",
    "expected",
    "actual",
    "raise",
    "timeout",
    "database",
    "query",
    "cache",
    "schema",
    "migration",
    "route",
    "view",
    "model",
]
SECRETS = (
    "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "ghp_0123456789abcdefABCDEF0123456789abcd",
)
CLAUDE_LISTING = "\n".join(
    f"- skill-{i}: " + " ".join(WORDS[i % 20 : i % 20 + 12]) for i in range(40)
)


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _output(rng: random.Random) -> str:
    lines = [
        f"{rng.choice(WORDS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 400)}: {_words(rng, 8)}"
        for _ in range(rng.randint(3, 24))
    ]
    if rng.random() < 0.02:
        lines.insert(1, f"OPENAI_API_KEY={rng.choice(SECRETS)}")
    return "\n".join(lines)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _claude_session(
    rng: random.Random, start: datetime, turns: int
) -> tuple[str, list[dict[str, object]]]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    cwd = PROJECT if rng.random() < 0.8 else f"{PROJECT}/src"
    base = {
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": cwd,
        "sessionId": sid,
        "version": "2.1.197",
        "gitBranch": "main",
    }
    records: list[dict[str, object]] = []
    parent = None
    now = start

    def stamp() -> str:
        nonlocal now
        now += timedelta(milliseconds=rng.randint(50, 9000))
        return _iso(now)

    def node(extra: dict[str, object]) -> dict[str, object]:
        nonlocal parent
        uid = str(uuid.UUID(int=rng.getrandbits(128)))
        record = {"parentUuid": parent, **extra, "uuid": uid, "timestamp": stamp(), **base}
        parent = uid
        return record

    for turn in range(turns):
        prompt = (
            _words(rng, rng.randint(6, 40))
            if turn == 0 or rng.random() < 0.7
            else "no, that's wrong, the test still fails"
        )
        records.append(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": stamp(),
                "sessionId": sid,
                "content": prompt,
            }
        )
        records.append(
            node({"type": "user", "message": {"role": "user", "content": prompt}, "promptId": sid})
        )
        if turn == 0:
            records.append(
                node(
                    {
                        "attachment": {"type": "skill_listing", "content": CLAUDE_LISTING},
                        "type": "attachment",
                    }
                )
            )
        for call in range(rng.randint(1, 4)):
            tool_id = f"toolu_{turn}_{call}"
            command = f"pytest -q tests/test_{rng.choice(WORDS)}.py"
            records.append(
                node(
                    {
                        "type": "assistant",
                        "message": {
                            "id": f"msg_{turn}{call}",
                            "type": "message",
                            "role": "assistant",
                            "model": "claude-opus-4-8",
                            "content": [
                                {
                                    "type": "tool_use",
                                    "id": tool_id,
                                    "name": "Bash",
                                    "input": {"command": command, "description": _words(rng, 4)},
                                }
                            ],
                            "stop_reason": "tool_use",
                            "usage": {"input_tokens": 10, "output_tokens": 5},
                        },
                    }
                )
            )
            out = _output(rng)
            error = rng.random() < 0.1
            records.append(
                node(
                    {
                        "type": "user",
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "tool_use_id": tool_id,
                                    "type": "tool_result",
                                    "content": out,
                                    "is_error": error,
                                }
                            ],
                        },
                        "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False},
                    }
                )
            )
        records.append(
            node(
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{turn}",
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-opus-4-8",
                        "content": [{"type": "text", "text": _words(rng, rng.randint(20, 200))}],
                        "stop_reason": "end_turn",
                    },
                }
            )
        )
        records.append({"type": "last-prompt", "lastPrompt": prompt, "sessionId": sid})
    return sid, records


def _codex_session(
    rng: random.Random, start: datetime, turns: int
) -> tuple[str, list[dict[str, object]]]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    cwd = PROJECT if rng.random() < 0.8 else f"{PROJECT}/src"
    now = start
    records: list[dict[str, object]] = []

    def add(kind: str, payload: dict[str, object]) -> None:
        nonlocal now
        now += timedelta(milliseconds=rng.randint(20, 6000))
        records.append({"timestamp": _iso(now), "type": kind, "payload": payload})

    add(
        "session_meta",
        {
            "session_id": sid,
            "id": sid,
            "timestamp": _iso(start),
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.169.0",
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": _words(rng, 800)},
            "git": {"branch": "main"},
        },
    )
    add(
        "response_item",
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "<skills_instructions>\n" + CLAUDE_LISTING}],
        },
    )
    add(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>",
                }
            ],
        },
    )
    add(
        "world_state",
        {
            "full": True,
            "state": {"environments": {"local": {"cwd": cwd}}, "notes": _words(rng, 200)},
        },
    )
    for turn in range(turns):
        prompt = (
            _words(rng, rng.randint(6, 40))
            if turn == 0 or rng.random() < 0.7
            else "wrong format - put the id on its own line"
        )
        add("event_msg", {"type": "task_started", "turn_id": f"t{turn}"})
        add(
            "turn_context",
            {
                "turn_id": f"t{turn}",
                "cwd": cwd,
                "approval_policy": "on-request",
                "model": "gpt-5-codex",
            },
        )
        add(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        )
        add(
            "event_msg",
            {
                "type": "item_completed",
                "item": {
                    "type": "UserMessage",
                    "id": f"u{turn}",
                    "content": [{"type": "text", "text": prompt, "text_elements": []}],
                },
            },
        )
        for call in range(rng.randint(1, 4)):
            call_id = f"call_{turn}_{call}"
            command = f"pytest -q tests/test_{rng.choice(WORDS)}.py"
            add(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": command}),
                    "call_id": call_id,
                },
            )
            out = _output(rng)
            code = 1 if rng.random() < 0.1 else 0
            add(
                "event_msg",
                {
                    "type": "item_completed",
                    "item": {
                        "type": "CommandExecution",
                        "id": call_id,
                        "command": ["/bin/bash", "-lc", command],
                        "aggregated_output": out,
                        "exit_code": code,
                        "status": "completed",
                    },
                },
            )
            add(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": f"Chunk ID: ab12\nWall time: 0.1 seconds\nProcess exited with code {code}\nOutput:\n{out}",
                },
            )
            add(
                "event_msg",
                {
                    "type": "token_count",
                    "info": {"total_token_usage": {"input_tokens": 100, "output_tokens": 20}},
                },
            )
        reply = _words(rng, rng.randint(20, 200))
        add(
            "event_msg",
            {
                "type": "item_completed",
                "item": {
                    "type": "AgentMessage",
                    "id": f"msg_{turn}",
                    "content": [{"type": "Text", "text": reply}],
                },
            },
        )
        add(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply}],
            },
        )
        add(
            "event_msg",
            {"type": "task_complete", "turn_id": f"t{turn}", "last_agent_message": reply},
        )
    return sid, records


def _write(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8"
    )


def generate(root: Path, sessions: int, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    start = datetime.now(timezone.utc) - timedelta(days=2)
    slug = "".join(c if c.isalnum() else "-" for c in PROJECT)
    files: list[Path] = []
    for i in range(sessions):
        moment = start + timedelta(seconds=20 * i)
        sid, records = _claude_session(rng, moment, rng.randint(2, 7))
        files.append(root / ".claude" / "projects" / slug / f"{sid}.jsonl")
        _write(files[-1], records)
        sid, records = _codex_session(rng, moment, rng.randint(2, 7))
        day = moment.strftime("%Y/%m/%d")
        files.append(
            root / ".codex" / "sessions" / day / f"rollout-{moment:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
        )
        _write(files[-1], records)
    return files


def baseline(files: list[Path]) -> tuple[float, float, int]:
    """The bare pass: open every file and ``json.loads`` every line (wall and CPU seconds)."""
    began, cpu = time.perf_counter(), time.process_time()
    lines = 0
    for path in files:
        with open(path, "rb") as handle:
            for line in handle:
                json.loads(line)
                lines += 1
    return time.perf_counter() - began, time.process_time() - cpu, lines


_CHILD = r"""
import json, resource, sys, time
from skillopt_sleep.harvest import harvest
homes = {"claude": sys.argv[1] + "/.claude", "codex": sys.argv[1] + "/.codex"}
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
began, cpu0 = time.perf_counter(), cpu()
result = harvest(sys.argv[2], sources=("claude", "codex"), index=sys.argv[3], homes=homes)
elapsed, cpu_s = time.perf_counter() - began, cpu() - cpu0
peak_kb = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(json.dumps({"seconds": elapsed, "cpu": cpu_s, "peak_mb": peak_kb / 1024, "sessions": len(result.sessions),
                  "bytes": sum(s.bytes_read for s in result.stats.values()),
                  "turns": sum(s.turns for s in result.stats.values()),
                  "tool_calls": sum(s.tool_calls for s in result.stats.values()),
                  "skipped_lines": sum(s.skipped_line_count for s in result.stats.values())}))
"""


def run_harvest(root: Path, state: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), PROJECT, str(state)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "SKILLOPT_SLEEP_HOME": str(state)},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def append_turns(files: list[Path], share: float, seed: int = 11) -> int:
    rng = random.Random(seed)
    chosen = rng.sample(files, max(1, int(len(files) * share)))
    for path in chosen:
        first = json.loads(path.open("rb").readline())
        stamp = _iso(datetime.now(timezone.utc))
        if ".claude" in path.parts:
            extra = {
                "type": "user",
                "uuid": str(uuid.uuid4()),
                "timestamp": stamp,
                "sessionId": first["sessionId"],
                "cwd": PROJECT,
                "message": {"role": "user", "content": "thanks, that works"},
            }
        else:
            extra = {
                "timestamp": stamp,
                "type": "event_msg",
                "payload": {"type": "user_message", "message": "thanks, that works"},
            }
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(extra) + "\n")
    return len(chosen)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=3000, help="sessions per harness")
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this directory")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-harvest-"))
    try:
        began = time.perf_counter()
        files = generate(root / "homes", args.sessions)
        size = sum(p.stat().st_size for p in files)
        print(
            f"corpus: {len(files)} files, {size / 1e6:.1f} MB, generated in {time.perf_counter() - began:.1f}s"
        )
        baseline(files)  # warm the page cache so both passes read from memory
        bare, bare_cpu, lines = baseline(files)
        cold = run_harvest(root / "homes", root / "state")
        warm = run_harvest(root / "homes", root / "state")
        touched = append_turns(files, 0.05)
        grown = run_harvest(root / "homes", root / "state")
        ratio = cold["seconds"] / bare
        share = warm["seconds"] / cold["seconds"]
        print(f"CPUs: {os.cpu_count()}, 1-min load average: {os.getloadavg()[0]:.1f}")
        print(f"bare json.loads pass : {bare:7.2f}s wall, {bare_cpu:.2f}s CPU  ({lines} lines)")
        print(
            f"cold harvest         : {cold['seconds']:7.2f}s wall, {cold['cpu']:.2f}s CPU  ({cold['sessions']} sessions, {cold['turns']} turns, {cold['tool_calls']} tool calls, {cold['skipped_lines']} skipped lines)"
        )
        print(
            f"ratio cold / bare    : {ratio:7.2f}x wall (target <= 2.00x)  {'PASS' if ratio <= 2 else 'FAIL'};"
            f"  {cold['cpu'] / bare_cpu:.2f}x CPU"
        )
        print(
            f"no-change re-run     : {warm['seconds']:7.3f}s = {100 * share:.1f}% of cold  (target <= 5%)  {'PASS' if share <= 0.05 else 'FAIL'}"
        )
        print(
            f"after appending to {touched} files: {grown['seconds']:.3f}s, {grown['sessions']} sessions, {grown['bytes']} bytes read"
        )
        peak = max(cold["peak_mb"], warm["peak_mb"], grown["peak_mb"])
        print(
            f"peak RSS             : {peak:7.1f} MB  (target < 500 MB)  {'PASS' if peak < 500 else 'FAIL'}"
        )
        return 0 if ratio <= 2 and share <= 0.05 and peak < 500 else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
