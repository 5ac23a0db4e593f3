"""Redaction benchmark: ``redact_many`` before and after its speed-up, on what a harvest redacts.

    .venv/bin/python benchmarks/bench_redaction.py [--sessions 3000] [--own-sessions 1000]
        [--repeat 7] [--reference REV] [--keep DIR]

The texts are the batches ``seal`` hands to ``redact_many`` (every kept text of a session,
``SEAL_BATCH`` at a time), recorded during real in-process harvests of: the shared
``gen_corpus.py`` Claude corpus, ``bench_harvest``'s own Claude and Codex corpus (shaped like the
genuine fixtures, with the odd planted secret) and the repository's fixture transcripts.

"Before" is the redaction code at ``--reference`` (default: the commit before the first
speed-up; ``--reference HEAD`` measures uncommitted work), loaded from git into a package of its
own, so both run in this process on the same batches.
Each run redacts every batch once with each, alternating; the medians of ``--repeat`` runs (wall
and CPU time) and their ratios are printed, and every output of the two is compared (exit 1 on
any difference).
The machine may be shared: the load average is printed before and after; compare medians.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_harvest  # its corpora: the shared generator's and its own

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "data" / "transcripts"
REFERENCE = "4c8442938bb0a60f4ced8756b7deba36950aef51"  # the last commit before the speed-up
# skillopt_core's redaction modules, in import order
MODULES = ("_secret_rules", "_entropy", "_redaction_scan", "redaction")

Batches = list[list[str]]


def load_reference(rev: str) -> types.ModuleType:
    """``skillopt_core.redaction`` as it was at ``rev``, importable beside today's."""
    package = types.ModuleType("_redaction_reference")
    package.__path__ = []
    sys.modules[package.__name__] = package
    for name in MODULES:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:skillopt_core/{name}.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        source = source.replace("skillopt_core", package.__name__)
        module = types.ModuleType(f"{package.__name__}.{name}")
        module.__file__ = f"{rev[:12]}:skillopt_core/{name}.py"
        sys.modules[module.__name__] = module
        exec(compile(source, module.__file__, "exec"), module.__dict__)
        setattr(package, name, module)
    return sys.modules[f"{package.__name__}.redaction"]


@contextlib.contextmanager
def recording() -> Iterator[Batches]:
    """Every batch any code passes to ``Redactor.redact_many`` while inside, in order; harvests
    read in this process (no forked workers, whose batches would stay in them)."""
    from skillopt_core.redaction import Redactor
    from skillopt_sleep import _forked

    batches: Batches = []
    original = Redactor.redact_many

    def record(self: Redactor, texts: Sequence[str]) -> list[str]:
        batches.append(list(texts))
        return original(self, texts)

    available = _forked.available
    Redactor.redact_many = record  # type: ignore[method-assign]
    _forked.available = lambda: False
    try:
        yield batches
    finally:
        Redactor.redact_many = original  # type: ignore[method-assign]
        _forked.available = available


def harvest(argv: list[str]) -> None:
    """One ``skillopt-sleep harvest`` in this process, its summary discarded."""
    from skillopt_sleep.cli import main

    saved = sys.argv
    sys.argv = ["skillopt-sleep", "harvest", *argv]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main()
    finally:
        sys.argv = saved


def harvested(homes: dict[str, Path], projects: Sequence[str], state: Path) -> Batches:
    with recording() as batches:
        for i, project in enumerate(projects):
            argv = ["-p", project, "-s", ",".join(homes), "--state-dir", str(state / str(i))]
            for source, home in homes.items():
                argv += [f"--{source}-home", str(home)]
            harvest(argv)
    return batches


def corpora(args: argparse.Namespace, root: Path) -> dict[str, Batches]:
    found: dict[str, Batches] = {}
    if args.gen_corpus.is_file() and args.sessions:
        homes = bench_harvest.gen_corpus(args.gen_corpus, root, args.sessions)
        label = f"gen_corpus {args.sessions} sessions"
        found[label] = harvested(homes, [bench_harvest.GEN_PROJECT], root / "s1")
    elif args.sessions:
        print(f"(no {args.gen_corpus}: the shared corpus is skipped)")
    if args.own_sessions:
        own = root / f"own-{args.own_sessions}"
        if not (own / ".claude").is_dir():
            bench_harvest.generate(own, args.own_sessions)
        homes = {"claude": own / ".claude", "codex": own / ".codex"}
        label = f"bench_harvest own, {args.own_sessions} x 2 sessions"
        found[label] = harvested(homes, [bench_harvest.PROJECT], root / "s2")
    fixtures = {s: FIXTURES / f".{s}" for s in ("claude", "codex", "copilot")}
    projects = ["/home/dev/webapp", "/home/dev/reading", "/home/dev/projects/my proj é"]
    found["fixture transcripts"] = harvested(fixtures, projects, root / "s3")
    return found


def timed(redact_many: Callable[[list[str]], list[str]], batches: Batches) -> tuple[float, float]:
    """Wall and CPU seconds to redact every batch once."""
    wall, cpu = time.perf_counter(), time.process_time()
    for batch in batches:
        redact_many(batch)
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(label: str, batches: Batches, before: object, after: object, repeat: int) -> bool:
    old, new = before.Redactor(), after.Redactor()  # type: ignore[attr-defined]
    same = all(old.redact_many(b) == new.redact_many(b) for b in batches)
    olds: list[tuple[float, float]] = []
    news: list[tuple[float, float]] = []
    for _ in range(repeat):
        olds.append(timed(old.redact_many, batches))
        news.append(timed(new.redact_many, batches))
    texts = sum(map(len, batches))
    mb = sum(len(t) for b in batches for t in b) / 1e6
    line = f"{label:38} {len(batches):7} {texts:7} {mb:6.1f}"
    for i in (0, 1):  # wall, then CPU
        o = statistics.median(r[i] for r in olds)
        n = statistics.median(r[i] for r in news)
        line += f" {o * 1000:8.1f} {n * 1000:8.1f} {o / n:5.2f}x"
    print(f"{line}  {'yes' if same else 'NO'}")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=3000, help="gen_corpus.py sessions")
    parser.add_argument("--own-sessions", type=int, default=1000, help="bench_harvest, per harness")
    parser.add_argument(
        "--gen-corpus", type=Path, default=bench_harvest.GEN_CORPUS, help="gen_corpus.py"
    )
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement (median)")
    parser.add_argument("--reference", default=REFERENCE, help="git revision of 'before'")
    parser.add_argument("--keep", type=Path, help="generate into (and keep, reuse) this directory")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-redaction-"))
    try:
        from skillopt_core import redaction

        before = load_reference(args.reference)
        print(f"CPUs: {os.cpu_count()}, 1-min load average: {os.getloadavg()[0]:.1f}")
        print(f"before: {args.reference[:12]}, after: the working tree; medians of {args.repeat}")
        found = corpora(args, root)
        print(f"{'':61}{'wall ms':>25}{'CPU ms':>25}")
        print(
            f"{'corpus':38} {'batches':>7} {'texts':>7} {'MB':>6}"
            + f" {'before':>8} {'after':>8} {'ratio':>6}" * 2
            + "  same"
        )
        same = [compare(k, v, before, redaction, args.repeat) for k, v in found.items()]
        print(f"1-min load average after: {os.getloadavg()[0]:.1f}")
        return 0 if all(same) else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
