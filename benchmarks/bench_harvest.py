"""Harvest benchmark: whole `skillopt-sleep harvest` processes vs a bare ``json.loads`` pass.

    .venv/bin/python benchmarks/bench_harvest.py [--sessions 3000] [--gen-sizes 3000,12000]
        [--repeat 3] [--keep DIR]

Corpora: this script's own (Claude Code and Codex sessions shaped like the genuine fixtures:
several turns, paired tool calls with multi-KB outputs, attachments, injected preambles, token
records, the odd planted secret) and the shared ``gen_corpus.py`` Claude corpus at 3,000 and
12,000 sessions. For each, medians of ``--repeat`` cold runs, every one a whole process (start-up,
reading, redaction, assembly and output included; the in-process figure alone hides start-up and
output):

* the bare pass: a Python process that ``json.loads`` every line of the same files;
* ``skillopt-sleep harvest`` (summary only) and ``harvest --json`` (sessions streamed to stdout);
* ``harvest`` in pure Python (``SKILLOPT_PURE_PYTHON=1``: without the Claude reader's C fold),
  for what the compiled fold saves;
* their wall and CPU ratios to the bare pass, against issue 13's targets (<= 1.0x wall,
  <= 1.3x with --json, CPU <= 1.5x), and peak RSS (flat from 3k to 12k sessions when streamed);
* on the own corpus, a committed night, a no-change re-run and a run after appending to 5%.

The machine is shared: the load average is printed before and after; compare medians.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECT = "/home/dev/webapp"
GEN_PROJECT = "/home/dev/proj"  # gen_corpus.py's default project
GEN_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "tools" / "gen_corpus.py"
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


_BARE = r"""
import json, os, sys
for root in sys.argv[1:]:
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".jsonl"):
                with open(os.path.join(folder, name), "rb") as handle:
                    for line in handle:
                        json.loads(line)
"""


@dataclass(frozen=True)
class Measure:
    """One whole process: wall and CPU seconds (children included), peak RSS in MB."""

    wall: float
    cpu: float
    peak_mb: float


def whole_process(argv: list[str], env: dict[str, str] | None = None) -> Measure:
    """Run ``argv`` to completion, stdout discarded (consumed as it streams)."""
    began = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed ({process.returncode}):\n{stderr}")
    return Measure(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(runs: list[Measure]) -> Measure:
    return Measure(
        statistics.median(m.wall for m in runs),
        statistics.median(m.cpu for m in runs),
        max(m.peak_mb for m in runs),
    )


def harvest_argv(homes: dict[str, Path], project: str, state: Path, *extra: str) -> list[str]:
    homes_args = [a for name, home in homes.items() for a in (f"--{name}-home", str(home))]
    sources = [a for name in homes for a in ("-s", name)]
    return [sys.executable, "-m", "skillopt_sleep", "harvest", "-p", project, *homes_args,
            *sources, "--state-dir", str(state), *extra]  # fmt: skip


# name -> (extra harvest arguments, extra environment); "bare" is the json.loads pass
RUNS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "bare": ((), {}),
    "harvest": ((), {}),
    "harvest --json": (("--json",), {}),
    "pure Python": ((), {"SKILLOPT_PURE_PYTHON": "1"}),
}


def compare(
    label: str, homes: dict[str, Path], project: str, scratch: Path, repeat: int
) -> dict[str, Measure]:
    """Bare pass vs ``skillopt-sleep harvest`` (and ``--json``), cold, whole processes."""
    roots = [str(h) for h in homes.values()]
    bare_argv = [sys.executable, "-c", _BARE, *roots]
    whole_process(bare_argv)  # warm the page cache so every pass reads from memory
    out: dict[str, list[Measure]] = {name: [] for name in RUNS}
    for number in range(repeat):
        out["bare"].append(whole_process(bare_argv))
        for name, (extra, env) in RUNS.items():
            if name == "bare":
                continue
            state = scratch / f"{label}-{name.replace(' ', '')}-{number}"
            shutil.rmtree(state, ignore_errors=True)
            out[name].append(whole_process(harvest_argv(homes, project, state, *extra), env))
    result = {name: median(runs) for name, runs in out.items()}
    bare = result["bare"]
    print(f"{label}: medians of {repeat}, whole processes (start-up and output included)")
    for name in RUNS:
        m = result[name]
        ratio = "" if name == "bare" else (
            f"   {m.wall / bare.wall:5.2f}x wall   {m.cpu / bare.cpu:5.2f}x CPU")  # fmt: skip
        print(f"  {name:<15} {m.wall:6.2f}s wall {m.cpu:6.2f}s CPU {m.peak_mb:7.1f} MB{ratio}")
    return result


def verdict(results: dict[str, dict[str, Measure]]) -> bool:
    """The issue's targets: harvest <= 1.0x bare wall, --json <= 1.3x, CPU <= 1.5x."""
    ok = True
    print("targets (issue 13): harvest <= 1.0x bare wall, --json <= 1.3x, CPU <= 1.5x")
    for label, result in results.items():
        bare, plain, streamed = result["bare"], result["harvest"], result["harvest --json"]
        checks = (
            ("harvest wall", plain.wall / bare.wall, 1.0),
            ("--json wall", streamed.wall / bare.wall, 1.3),
            ("harvest CPU", plain.cpu / bare.cpu, 1.5),
        )
        line = ", ".join(
            f"{name} {value:.2f}x {'PASS' if value <= target else 'FAIL'}"
            for name, value, target in checks
        )
        ok = ok and all(value <= target for _, value, target in checks)
        print(f"  {label}: {line}")
    return ok


def incremental(homes: dict[str, Path], files: list[Path], scratch: Path) -> None:
    """A committed night, a no-change re-run, and a run after appending to 5% of the files."""
    state = scratch / "incremental"
    shutil.rmtree(state, ignore_errors=True)
    cold = whole_process(harvest_argv(homes, PROJECT, state, "--commit"))
    warm = whole_process(harvest_argv(homes, PROJECT, state, "--commit"))
    touched = append_turns(files, 0.05)
    grown = whole_process(harvest_argv(homes, PROJECT, state, "--commit"))
    print(
        f"incremental (own corpus, --commit): cold {cold.wall:.2f}s, no-change re-run "
        f"{warm.wall:.2f}s ({100 * warm.wall / cold.wall:.0f}% of cold, start-up included), "
        f"after appending to {touched} files {grown.wall:.2f}s"
    )


def gen_corpus(script: Path, root: Path, sessions: int) -> dict[str, Path]:
    """The shared generator's Claude corpus (``gen_corpus.py HOME N``), made once per size."""
    home = root / f"gen-{sessions}"
    if not (home / ".claude").is_dir():
        subprocess.run([sys.executable, str(script), str(home), str(sessions)], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    return {"claude": home / ".claude"}


def compile_package() -> None:
    """Byte-compile the package as an install does (pip writes every module's ``.pyc``), so no
    run pays for compiling sources: with ``PYTHONDONTWRITEBYTECODE`` set (as on some machines) an
    editable checkout would otherwise recompile each changed module in every process."""
    package = Path(__file__).resolve().parents[1]
    for name in ("skillopt_core", "skillopt_sleep"):
        compileall.compile_dir(package / name, quiet=1)
    print("byte-compiled skillopt_core and skillopt_sleep (as an install would)")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=3000, help="own corpus, per harness")
    parser.add_argument("--gen-sizes", default="3000,12000", help="gen_corpus.py sizes")
    parser.add_argument("--gen-corpus", type=Path, default=GEN_CORPUS, help="gen_corpus.py")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--keep", type=Path, help="generate into (and keep, reuse) this directory")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-harvest-"))
    scratch = root / "states"
    try:
        print(f"CPUs: {os.cpu_count()}, 1-min load average: {os.getloadavg()[0]:.1f}")
        from skillopt_sleep.harvest._compiled import FOLDS, status

        built = ", ".join(f"{name} {status(name)[0]}" for name in FOLDS)
        print(f"the readers' C folds: {built} (the 'pure Python' run turns them off)")
        compile_package()
        own = root / "own"
        shutil.rmtree(own, ignore_errors=True)  # file names carry the time: never mix two
        began = time.perf_counter()
        files = generate(own, args.sessions)
        size = sum(p.stat().st_size for p in files)
        print(f"own corpus: {len(files)} files, {size / 1e6:.1f} MB "
              f"({time.perf_counter() - began:.1f}s to generate)")  # fmt: skip
        homes = {"claude": own / ".claude", "codex": own / ".codex"}
        results = {"own": compare("own", homes, PROJECT, scratch, args.repeat)}
        if args.gen_corpus.is_file():
            for sessions in (int(n) for n in args.gen_sizes.split(",") if n):
                gen_homes = gen_corpus(args.gen_corpus, root, sessions)
                label = f"gen_corpus {sessions}"
                results[label] = compare(label, gen_homes, GEN_PROJECT, scratch, args.repeat)
        else:
            print(f"(no {args.gen_corpus}: the shared corpus is skipped)")
        incremental(homes, files, scratch)
        peaks = {label: r["harvest --json"].peak_mb for label, r in results.items()}
        print("peak RSS with --json: " + ", ".join(f"{k} {v:.0f} MB" for k, v in peaks.items()))
        print(f"1-min load average after: {os.getloadavg()[0]:.1f}")
        return 0 if verdict(results) else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
