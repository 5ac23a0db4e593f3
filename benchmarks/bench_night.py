"""A night over a generated history with the mock backend: wall time and peak RSS per stage, the
longest stretch without a progress tick, what was replayed, and the night after (nothing new).

Histories (each night is a child process of its own, so its figures are that night's alone):

* this script's own (``--sessions``, default 1,000): Claude Code sessions in the on-disk record
  shape (as in tests/data/transcripts) with requests from the benchmark corpus (recurring
  families, paraphrased, 15% one-offs), a quarter of them corrected so the miner writes checks;
* the shared ``gen_corpus.py`` (``--gen-sizes 3000,12000``): a developer's year, few distinct
  requests, long sessions;
* ``bench_harvest.py``'s own corpus (``--harvest-corpus 3000``: as many Claude Code and Codex
  sessions each, almost every request worded anew: the hardest first night for the miner).

Per night: the night's own stage timings; per progress label (``harvest``, ``mine`` and its
``embed`` / ``cluster`` / ``families`` steps, ``replay``) the time from its first tick to the
next label's and the parent's peak RSS meanwhile (``/proc/self/clear_refs``; forked workers are
not counted); the longest silence between two ticks; the tasks replayed per split; then a second
night on the same state. Baselines measured in the same run: a bare ``json.loads`` pass over the
history's files (for the harvest stage) and, with ``--baseline DIR`` (another checkout, e.g.
``git archive HEAD | tar -x -C DIR``), every night again on that code, with the ratios.

    .venv/bin/python benchmarks/bench_night.py [--sessions 1000] [--embedder tfidf]
    .venv/bin/python benchmarks/bench_night.py --sessions 0 --gen-sizes 3000,12000 \\
        --embedder auto --baseline /tmp/base [--harvest-corpus 3000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import make_labelled  # noqa: E402

GEN_CORPUS = HERE.parents[1] / "shared" / "tools" / "gen_corpus.py"
CORRECTIONS = (
    "no, that's wrong - include the 'Testing' section",
    "still failing, you need to mention the migration id",
    "wrong format - put the ticket id on its own line",
    "too long, keep it under 200 words",
)


def _record(
    kind: str, sid: str, project: str, when: datetime, parent: str | None, message: dict
) -> dict:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "message": message,
        "uuid": str(uuid.uuid4()),
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "userType": "external",
        "entrypoint": "cli",
        "cwd": project,
        "sessionId": sid,
        "version": "2.1.197",
        "gitBranch": "main",
    }


def write_sessions(home: Path, project: Path, count: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(timezone.utc) - timedelta(days=20)
    for n, (text, _family) in enumerate(make_labelled(count, seed)):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        when = start + timedelta(minutes=25 * n)
        user = _record("user", sid, str(project), when, None, {"role": "user", "content": text})
        reply = {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"Done: {text[:80]}"}],
            "stop_reason": "end_turn",
        }
        later = when + timedelta(seconds=20)
        records = [user, _record("assistant", sid, str(project), later, user["uuid"], reply)]
        if rng.random() < 0.25:
            fix = {"role": "user", "content": rng.choice(CORRECTIONS)}
            later = when + timedelta(seconds=60)
            records.append(_record("user", sid, str(project), later, records[-1]["uuid"], fix))
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _histories(args: argparse.Namespace, root: Path) -> list[dict[str, Any]]:
    """Each history to run a night over: its label, project, harness homes (made once)."""
    out: list[dict[str, Any]] = []
    if args.sessions:
        home, project = root / f"own-{args.sessions}", root / "project"
        if not home.is_dir():
            write_sessions(home, project, args.sessions)
        out.append({"label": f"own {args.sessions}", "project": project, "home": home})
    for size in (int(n) for n in args.gen_sizes.split(",") if n):
        if not GEN_CORPUS.is_file():
            print(f"(no {GEN_CORPUS}: gen_corpus histories skipped)")
            break
        home, project = root / f"gen-{size}", root / "gen-project"
        if not home.is_dir():
            command = [sys.executable, str(GEN_CORPUS), str(home), str(size), "--project"]
            subprocess.run([*command, str(project)], check=True, stdout=subprocess.DEVNULL)
        out.append({"label": f"gen_corpus {size}", "project": project, "home": home})
    if args.harvest_corpus:
        import bench_harvest

        home, project = root / f"harvest-{args.harvest_corpus}", root / "harvest-project"
        bench_harvest.PROJECT = str(project)  # its sessions' working directory
        if not home.is_dir():
            bench_harvest.generate(home, args.harvest_corpus)
        out.append(
            {"label": f"bench_harvest {args.harvest_corpus}", "project": project, "home": home}
        )
    for history in out:
        history["project"].mkdir(parents=True, exist_ok=True)
        files = list(history["home"].rglob("*.jsonl"))
        history["files"], history["mb"] = len(files), sum(p.stat().st_size for p in files) / 1e6
    return out


def _bare_pass(home: Path) -> float:
    """Wall seconds of a process that json.loads every line of the history (the floor)."""
    code = (
        "import json,pathlib,sys\n"
        "for p in pathlib.Path(sys.argv[1]).rglob('*.jsonl'):\n"
        "    for line in p.open('rb'):\n"
        "        json.loads(line)\n"
    )
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(home)], check=True)
    return time.perf_counter() - began


def _night(
    history: dict[str, Any], state: Path, code: Path | None, args: argparse.Namespace
) -> dict[str, Any] | None:
    """One night in a child process (``code``: the checkout it imports; None: this one); None
    when it did not finish within ``--timeout``."""
    env = {**os.environ, "SKILLOPT_SLEEP_HOME": str(state)}
    env["SKILLOPT_SLEEP_CONFIG"] = str(state.parent / "no-config.toml")
    env["PYTHONPATH"] = str(code or HERE.parent)
    request = {
        "project": str(history["project"]),
        "home": str(history["home"]),
        "embedder": args.embedder,
        "max_calls": args.max_calls,
    }
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(request)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=args.timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - began
    return result


def _nights(
    history: dict[str, Any], root: Path, name: str, code: Path | None, args: argparse.Namespace
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, list[float]]:
    """``--repeat`` first nights (each on fresh state), the one of median wall time, the night
    after it on its state, and every first night's wall time."""
    firsts: list[tuple[float, dict[str, Any], Path]] = []
    for number in range(args.repeat):
        state = root / "states" / f"{history['label']}-{name}-{number}".replace(" ", "_")
        shutil.rmtree(state, ignore_errors=True)
        state.mkdir(parents=True)
        first = _night(history, state, code, args)
        if first is None:
            break
        firsts.append((sum(first["stages"].values()), first, state))
    if not firsts:
        return None, None, []
    firsts.sort(key=lambda entry: entry[0])
    _, first, state = firsts[len(firsts) // 2]
    return first, _night(history, state, code, args), [wall for wall, _, _ in firsts]


def _child(request: dict[str, Any]) -> None:
    """Run one night here and print its figures as one JSON line."""
    import skillopt_sleep.engine.night as night
    from skillopt_sleep.engine import load_config, run_night

    home, project = Path(request["home"]), Path(request["project"])
    overrides = {
        "homes.claude": str(home / ".claude"),
        "homes.codex": str(home / ".codex"),
        "night.sources": "claude,codex",
        "night.since": "3650d",
        "mine.embedder": request["embedder"],
        "budget.max_calls": request["max_calls"],
    }
    replayed: list[list[int]] = []
    consolidate = night.consolidate

    def spy(base: Any, part: Any, *rest: Any, **named: Any) -> Any:
        replayed.append([len(part.train), len(part.val), len(part.test)])
        return consolidate(base, part, *rest, **named)

    night.consolidate = spy
    meter = _Meter()
    report = run_night(project, load_config(project, overrides), home=home, progress=meter.tick)
    meter.close()
    print(
        json.dumps(
            {
                "sessions": report.sessions,
                "requests": report.requests,
                "tasks": report.tasks,
                "families": len(report.families),
                "calls": report.usage.calls,
                "outcome": report.outcome,
                "stages": report.stage_seconds,
                "labels": meter.labels,
                "silence": meter.silence,
                "whole_peak_mb": meter.whole_peak(),
                "replayed": replayed,
            }
        )
    )


def _status(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


class _Meter:
    """Per progress label: seconds from its first tick to the next label's, and the parent's
    peak RSS meanwhile (the kernel's high-water mark, reset at each new label)."""

    def __init__(self) -> None:
        self.began = self.last = time.perf_counter()
        self.labels: dict[str, list[float]] = {}  # label -> [seconds, peak MB]
        self.silence: list[Any] = [0.0, "start", "start"]
        self.current = ""
        self.peak = 0.0

    def whole_peak(self) -> float:
        import resource

        return max(self.peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

    def tick(self, label: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - self.last > self.silence[0]:
            self.silence = [now - self.last, self.current, label]
        self.last = now
        if label != self.current:
            self._close_label(now)
            self.current = label

    def _close_label(self, now: float) -> None:
        if self.current:
            entry = self.labels.setdefault(self.current, [0.0, 0.0])
            entry[0] += now - self.began
            entry[1] = max(entry[1], _status("VmHWM"))
            self.peak = max(self.peak, entry[1])
        self.began = now
        with contextlib.suppress(OSError):  # without it, a label's peak is the night's so far
            Path("/proc/self/clear_refs").write_text("5")  # VmHWM from here on

    def close(self) -> None:
        now = time.perf_counter()
        if now - self.last > self.silence[0]:
            self.silence = [now - self.last, self.current, "end"]
        self._close_label(now)


def _print_night(title: str, result: dict[str, Any], base: dict[str, Any] | None) -> None:
    def ratio(a: float, b: float) -> str:
        return f"{a / b:5.2f}x" if b else "    -"

    wall = sum(result["stages"].values())
    print(
        f"  {title}: {result['sessions']} sessions, {result['requests']} requests, "
        f"{result['tasks']} tasks in {result['families']} families, {result['calls']} calls, "
        f"{result['outcome']!r}; replayed (train/val/test per target) {result['replayed']}"
        + (f", baseline {base['replayed']} in {base['calls']} calls" if base else "")
    )
    head = f"    {'stage':<20}{'wall s':>9}{'peak MB':>9}"
    print(head + (f"{'base s':>9}{'base MB':>9}{'wall':>8}{'RSS':>8}" if base else ""))
    for stage, seconds in result["stages"].items():
        line = f"    {stage:<20}{seconds:9.2f}{'':>9}"
        if base and stage in base["stages"]:
            line += f"{base['stages'][stage]:9.2f}{'':>9}{ratio(seconds, base['stages'][stage]):>8}"
        print(line)
    for label, (seconds, peak) in result["labels"].items():
        line = f"      {'- ' + label:<18}{seconds:9.2f}{peak:9.0f}"
        if base and label in base["labels"]:
            b_s, b_mb = base["labels"][label]
            line += f"{b_s:9.2f}{b_mb:9.0f}{ratio(seconds, b_s):>8}{ratio(peak, b_mb):>8}"
        print(line)
    line = f"    {'whole night':<20}{wall:9.2f}{result['whole_peak_mb']:9.0f}"
    if base:
        b_wall = sum(base["stages"].values())
        line += f"{b_wall:9.2f}{base['whole_peak_mb']:9.0f}{ratio(wall, b_wall):>8}"
        line += f"{ratio(result['whole_peak_mb'], base['whole_peak_mb']):>8}"
    print(line)
    gap, before, after = result["silence"]
    text = f"    longest silence {gap:.1f} s ({before} -> {after})"
    if base:
        text += (
            f"; baseline {base['silence'][0]:.1f} s ({base['silence'][1]} -> {base['silence'][2]})"
        )
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=1000, help="own history (0: none)")
    parser.add_argument("--gen-sizes", default="", help="gen_corpus.py histories, e.g. 3000,12000")
    parser.add_argument(
        "--harvest-corpus", type=int, default=0, help="bench_harvest.py's, per harness"
    )
    parser.add_argument("--embedder", default="tfidf", help="auto for a night's default (MiniLM)")
    parser.add_argument("--max-calls", type=int, default=0, help="budget.max_calls (0: none)")
    parser.add_argument("--baseline", type=Path, help="another checkout to run every night on too")
    parser.add_argument("--keep", type=Path, help="generate the histories into (and reuse) DIR")
    parser.add_argument("--repeat", type=int, default=1, help="first nights per code (median)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds a night may take")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(json.loads(args.child))
        return
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-night-"))
    try:
        print(f"CPUs: {os.cpu_count()}, 1-min load average: {os.getloadavg()[0]:.1f}")
        for history in _histories(args, root):
            bare = _bare_pass(history["home"])
            print(
                f"\n{history['label']}: {history['files']} files, {history['mb']:.0f} MB; "
                f"embedder {args.embedder}; a bare json.loads pass: {bare:.2f} s"
            )
            results = {}
            for name, code in (("this code", None), ("baseline", args.baseline)):
                if name == "baseline" and code is None:
                    continue
                results[name] = _nights(history, root, name, code, args)
            first, again, walls = results["this code"]
            base, _, base_walls = results.get("baseline", (None, None, []))
            if first is None or again is None:
                print(f"  this code: no night finished within {args.timeout:.0f} s")
                continue
            spread = f"first-night walls {', '.join(f'{w:.1f}' for w in walls)} s (median shown)"
            if args.baseline is not None:
                done = ", ".join(f"{w:.1f}" for w in base_walls) or "-"
                spread += f"; baseline {done} s"
                if base is None:
                    spread += f" (did not finish within {args.timeout:.0f} s)"
            print(f"  {spread}")
            _print_night("first night", first, base)
            print(
                f"    harvest / bare json pass: {first['stages']['harvest'] / bare:.2f}x"
                + (f" (baseline {base['stages']['harvest'] / bare:.2f}x)" if base else "")
            )
            quiet = sum(again["stages"].values())
            print(
                f"  second night: {again['sessions']} sessions, {quiet:.2f} s, "
                f"{again['calls']} calls, outcome {again['outcome']!r} "
                f"({quiet / sum(first['stages'].values()):.3f} of the first)"
            )
        print(f"\n1-min load average after: {os.getloadavg()[0]:.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
