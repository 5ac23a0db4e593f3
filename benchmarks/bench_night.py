"""A night over 1,000 Claude Code sessions with the mock backend: wall time, share per stage, and a
night with nothing new (target: <= 2 s, no model call).

Sessions are written in Claude Code's on-disk record shape (as in tests/data/transcripts) with
requests from the benchmark corpus (recurring families, paraphrased, 15% one-offs); a quarter of
them get a correction that names a requirement, so the miner synthesises rule checks.

    .venv/bin/python benchmarks/bench_night.py [--sessions 1000] [--embedder tfidf]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import make_labelled

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
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(timezone.utc) - timedelta(days=20)
    for n, (text, _family) in enumerate(make_labelled(count, seed)):
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        when = start + timedelta(minutes=25 * n)
        records = []
        user = _record("user", sid, str(project), when, None, {"role": "user", "content": text})
        records.append(user)
        reply = {
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": f"Done: {text[:80]}"}],
            "stop_reason": "end_turn",
        }
        records.append(
            _record(
                "assistant", sid, str(project), when + timedelta(seconds=20), user["uuid"], reply
            )
        )
        if rng.random() < 0.25:
            fix = {"role": "user", "content": rng.choice(CORRECTIONS)}
            records.append(
                _record(
                    "user",
                    sid,
                    str(project),
                    when + timedelta(seconds=60),
                    records[-1]["uuid"],
                    fix,
                )
            )
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--embedder", default="tfidf")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-night-"))
    os.environ["SKILLOPT_SLEEP_HOME"] = str(root / "state")
    os.environ["SKILLOPT_SLEEP_CONFIG"] = str(root / "no-config.toml")
    home, project = root / "home", root / "project"
    project.mkdir()
    t0 = time.perf_counter()
    write_sessions(home, project, args.sessions)
    print(f"wrote {args.sessions} Claude Code sessions in {time.perf_counter() - t0:.2f} s")

    from skillopt_sleep.engine import load_config, run_night

    config = load_config(
        project,
        {
            "homes.claude": str(home / ".claude"),
            "night.sources": "claude",
            "night.since": "3650d",
            "mine.embedder": args.embedder,
            "budget.max_calls": 0,
        },
    )
    t0 = time.perf_counter()
    report = run_night(project, config, home=home)
    wall = time.perf_counter() - t0
    print(
        f"\nnight over {report.sessions} sessions: {wall:.2f} s wall, outcome {report.outcome!r}, "
        f"{len(report.families)} families, {report.tasks} tasks mined (at most "
        f"{config.night.max_tasks} replayed: night.max_tasks), {report.usage.calls} model calls, "
        f"{len(report.accepted)} accepted / {len(report.rejected)} rejected edits"
    )
    accounted = sum(report.stage_seconds.values())
    for stage, seconds in report.stage_seconds.items():
        print(f"  {stage:<20} {seconds:7.2f} s  {100 * seconds / wall:5.1f}%")
    print(
        f"  {'(other: lock, recover, save)':<20} {wall - accounted:7.2f} s  {100 * (wall - accounted) / wall:5.1f}%"
    )

    t0 = time.perf_counter()
    quiet = run_night(project, config, home=home)
    quiet_wall = time.perf_counter() - t0
    verdict = "OK" if quiet_wall <= 2.0 and quiet.usage.calls == 0 else "MISSED"
    print(
        f"\nnight with nothing new: {quiet_wall:.3f} s, outcome {quiet.outcome!r}, "
        f"{quiet.usage.calls} model calls (target <= 2 s and 0 calls: {verdict}); "
        f"ratio to the full night {quiet_wall / wall:.3f}"
    )


if __name__ == "__main__":
    main()
