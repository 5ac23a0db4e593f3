"""Feedback-signal benchmark: ``signals.classify`` and ``detect`` before and after issue 13.

    .venv/bin/python benchmarks/bench_signals.py [--sessions 500] [--repeat 7] [--corpus HOME]

The corpus is ``gen_corpus.py --codex`` (Claude Code and Codex sessions, written to a temp folder
unless ``--corpus`` names one already made), harvested in this process with the inputs of every
``detect`` call recorded. Timed, old (the frozen copy in
``tests/harvest/test_signals_equivalence.py``) against new, medians of ``--repeat`` runs (the two
alternate, so a busy machine slows both alike):

* ``classify`` on the corpus's user turns, on the two request sets (English; multilingual), and
  on long prompts (requests of ``benchmarks/_corpus.py`` joined to ~1,000 characters: it reads
  the first 600), as they are and with typographic punctuation (non-ASCII, but plain text: see
  ``signals._NOT_PLAIN``);
* ``detect`` on every recorded session, and on one session of 6,000 distinct prompts;
* ``detect`` on every recorded session against the code before issue 13's second pass on it
  (the frozen copy in ``tests/harvest/test_signals_second_pass.py``).

Every timed call's result is checked equal, old and new, first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._corpus import make_requests  # noqa: E402
from benchmarks.bench_harvest import GEN_CORPUS, GEN_PROJECT  # noqa: E402
from skillopt_sleep.harvest import _reading, harvest, signals  # noqa: E402
from tests.harvest.test_signals_equivalence import before_classify, before_detect  # noqa: E402
from tests.harvest.test_signals_second_pass import head_detect  # noqa: E402

DATA = ROOT / "tests" / "data"
Session = tuple[list[Any], tuple[int, ...]]


def recorded_sessions(home: Path) -> list[Session]:
    """The inputs of every ``detect`` call of an in-process harvest of ``home``."""
    recorded: list[Session] = []
    real = signals.detect

    def spy(steps: Sequence[Any], interrupted: Any = ()) -> tuple[Any, ...]:
        recorded.append((list(steps), tuple(interrupted)))
        return real(steps, interrupted)

    homes = {h: home / f".{h}" for h in ("claude", "codex") if (home / f".{h}").is_dir()}
    with mock.patch.object(signals, "detect", spy), mock.patch.object(_reading, "_parallel", return_value=0):  # fmt: skip
        harvest(GEN_PROJECT, tuple(homes), "3650d", ":memory:", homes=homes, commit=False)
    return recorded


def long_prompts(n: int = 400, typographic: bool = False) -> list[str]:
    requests = make_requests(n * 12, seed=13)
    prompts = [" ".join(requests[i * 12 : (i + 1) * 12])[:1000] for i in range(n)]
    if typographic:
        return [f"“{p.replace(chr(39), '’')}” — ok…" for p in prompts]
    return prompts


def median_seconds(run: Callable[[], object], other: Callable[[], object], repeat: int) -> tuple[float, float]:  # fmt: skip
    """Medians of ``run`` and ``other``, timed in turns."""
    times: tuple[list[float], list[float]] = ([], [])
    for r in range(repeat):
        order = ((0, run), (1, other)) if r % 2 == 0 else ((1, other), (0, run))
        for slot, fn in order:
            start = time.perf_counter()
            fn()
            times[slot].append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def row(label: str, n: int, old: float, new: float) -> None:
    print(f"{label:34s} {n:>7,} {old / n * 1e6:>10.2f} {new / n * 1e6:>10.2f} {old / new:>7.2f}x")


def bench_classify(label: str, texts: list[str], repeat: int) -> None:
    assert all(signals.classify(t) == before_classify(t) for t in texts), label
    old, new = median_seconds(
        lambda: [before_classify(t) for t in texts], lambda: [signals.classify(t) for t in texts], repeat
    )  # fmt: skip
    row(label, len(texts), old, new)


def bench_detect(
    label: str, sessions: list[Session], repeat: int, before: Callable[..., object] = before_detect
) -> None:
    assert all(signals.detect(s, i) == before(s, i) for s, i in sessions), label
    old, new = median_seconds(
        lambda: [before(s, i) for s, i in sessions],
        lambda: [signals.detect(s, i) for s, i in sessions],
        repeat,
    )
    row(label, len(sessions), old, new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sessions", type=int, default=500, help="gen_corpus.py sessions a harness"
    )
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--corpus", type=Path, help="a HOME gen_corpus.py --codex already wrote")
    parser.add_argument("--gen-corpus", type=Path, default=GEN_CORPUS, help="gen_corpus.py")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-signals-") as scratch:
        os.environ["SKILLOPT_SLEEP_HOME"] = str(Path(scratch) / "state")
        home = args.corpus
        if home is None:
            home = Path(scratch) / "home"
            command = [
                sys.executable,
                str(args.gen_corpus),
                str(home),
                str(args.sessions),
                "--codex",
            ]
            subprocess.run(command, check=True)
        sessions = recorded_sessions(home)
    turns = [step[1] for steps, _ in sessions for step in steps if step[0] == "user"]
    distinct = [("user", f"alpha{i} beta{i} gamma{i}", None, ()) for i in range(6000)]
    print(f"CPUs: {os.cpu_count()}, 1-min load average: {os.getloadavg()[0]:.1f}")
    print(f"{'':34s} {'calls':>7s} {'old us':>10s} {'new us':>10s} {'speedup':>8s}")
    bench_classify("classify: corpus user turns", turns, args.repeat)
    for name in ("requests.jsonl", "i18n_requests.jsonl"):
        texts = [json.loads(line)["text"] for line in (DATA / name).read_text().splitlines()]
        bench_classify(f"classify: {name}", texts, args.repeat)
    bench_classify("classify: long prompts (1,000 ch)", long_prompts(), args.repeat)
    bench_classify("classify: the same, typographic", long_prompts(typographic=True), args.repeat)
    bench_detect("detect: corpus sessions", sessions, args.repeat)
    bench_detect("detect: 6,000 distinct prompts", [(distinct, ())], max(3, args.repeat // 2))
    bench_detect("detect: sessions, vs 2nd pass base", sessions, args.repeat, head_detect)
    print(f"1-min load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
