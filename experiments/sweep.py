"""The sweep: every persona x ablation x seed through the proof, then the report and the plots.

    python -m experiments.sweep [--seeds 0-4] [--transfer-seeds 0-4] [--nights 4] [--workers 1]
        [--out experiments/results]

Writes ``results.jsonl`` (one run per line; rows already there are reused, so an interrupted sweep
resumes), ``report.md`` (tables: mean ± sd and bootstrap intervals of held-out after N nights,
edits accepted, harmful edits landed, calls) and SVG plots. Deterministic for the seeds. One sweep
at a time writes a folder (a second exits 5); Ctrl-C or SIGTERM stops the workers, removes their
temporary worlds and keeps every finished row.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from experiments._cli import guarded, usage
from experiments.ablations import ABLATIONS
from experiments.personas import PERSONAS
from experiments.proof import ExperimentResult, ExperimentSpec
from experiments.results_file import append_row, read_rows, rewrite
from skillopt_core.interrupts import EXIT_SIGTERM

FULL = "none"
TRANSFER = ("transfer a->b", "trained on b")
RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Job:
    persona: str
    ablation: str  # FULL, an ablation name, or one of TRANSFER
    seed: int
    nights: int

    @property
    def key(self) -> str:
        return f"{self.persona}|{self.ablation}|{self.seed}|{self.nights}"


def row(job: Job, result: ExperimentResult) -> dict[str, Any]:
    return {
        "key": job.key,
        "persona": job.persona,
        "ablation": job.ablation,
        "seed": job.seed,
        "nights": job.nights,
        "baseline": result.baseline,
        "per_night": [n.held_out for n in result.nights],
        "final": result.final,
        "delta": result.delta,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "accepted": len(result.accepted),
        "rejected": len(result.rejected),
        "harmful_proposed": sum(1 for e in result.edits if e.harm),
        "harmful_rejected": len(result.harmful_rejected),
        "harmful_landed": len(result.harmful_accepted),
        "proof_holds": result.proof_holds,
        "calls": result.calls,
        "tokens": result.tokens,
    }


def run_job(job: Job) -> dict[str, Any]:
    from experiments.proof import run

    spec = ExperimentSpec(persona=job.persona, seed=job.seed, nights=job.nights)
    if job.ablation == TRANSFER[0]:
        spec = ExperimentSpec(job.persona, job.seed, job.nights, profile="a", eval_profile="b")
    elif job.ablation == TRANSFER[1]:
        spec = ExperimentSpec(job.persona, job.seed, job.nights, profile="b", eval_profile="b")
    elif job.ablation != FULL:
        spec = ExperimentSpec(job.persona, job.seed, job.nights, ablate=(job.ablation,))
    return row(job, run(spec))


def jobs(seeds: list[int], nights: int, transfer_seeds: list[int]) -> Iterator[Job]:
    for persona in PERSONAS:
        for ablation in (FULL, *ABLATIONS):
            for seed in seeds:
                yield Job(persona, ablation, seed, nights)
        for ablation in TRANSFER:
            for seed in transfer_seeds:
                yield Job(persona, ablation, seed, nights)


def _worker_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(EXIT_SIGTERM)  # unwinds the run, so its temporary world is removed


def _worker_signals() -> None:
    """A worker leaves Ctrl-C (sent to the whole process group) to the parent, which stops it
    with SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_exit)


@contextmanager
def _results(todo: list[Job], workers: int) -> Iterator[Iterator[dict[str, Any]]]:
    """The jobs' rows in job order; an interruption stops every worker before it returns."""
    if workers <= 1 or len(todo) <= 1:
        yield map(run_job, todo)
        return
    pool = multiprocessing.Pool(min(workers, len(todo)), initializer=_worker_signals)
    try:
        yield pool.imap(run_job, todo)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def sweep(
    out: Path, seeds: list[int], nights: int, workers: int, transfer_seeds: list[int]
) -> list[dict[str, Any]]:
    from skillopt_core.lock import exclusive

    with exclusive(out, "sweep", elsewhere="give this one another --out"):
        path = out / "results.jsonl"
        stored = read_rows(path)
        if not stored.tidy:
            rewrite(path, stored.rows.values())
        if stored.dropped:
            print(f"dropped {stored.dropped} unreadable line(s) of {path}; those runs run again")
        wanted = list(jobs(seeds, nights, transfer_seeds))
        todo = [j for j in wanted if j.key not in stored.rows]
        print(
            f"{len(wanted)} runs: {len(wanted) - len(todo)} already in {path} (reused), "
            f"{len(todo)} to run",
            flush=True,
        )
        done = 0
        try:
            with _results(todo, workers) as results:
                for done, result in enumerate(results, 1):
                    append_row(path, result)
                    print(f"[{done}/{len(todo)}] {result['key']}: final {result['final']:.3f}")
                    sys.stdout.flush()
        except KeyboardInterrupt:
            print(
                f"stopped with {done} of {len(todo)} runs finished; every finished run is in "
                f"{path}, and the same command resumes from there",
                file=sys.stderr,
            )
            raise
        keys = {j.key for j in wanted}
        return [r for k, r in read_rows(path).rows.items() if k in keys]


def seeds_arg(text: str) -> list[int]:
    """``0-4``, ``0,2,7`` or a mix (``0-2,9``); ``none`` for no seeds."""
    if text.strip().lower() == "none":
        return []
    seeds: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if dash else lo)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r}: give seeds as 0-4, 0,2,7 or 0-2,9 (seeds are 0 or more)"
            ) from None
        if last < first:
            raise argparse.ArgumentTypeError(f"{text!r}: the range {part.strip()} is empty")
        seeds += [s for s in range(first, last + 1) if s not in seeds]
    return seeds


EXAMPLES = """\
examples:
  %(prog)s                                  # the README's sweep (reuses its rows)
  %(prog)s --out /tmp/sweep --workers 2     # every run afresh: 250 runs, about 12 min
  %(prog)s --seeds 0 --transfer-seeds none --nights 1 --out /tmp/quick   # 40 runs, ~2 min

exit codes: 0 ok, 1 a file could not be written, 2 a flag we cannot use, 5 another sweep is
writing the same folder, 130 interrupted, 143 stopped by SIGTERM (finished rows are kept either
way; the same command resumes).
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.sweep",
        description="Every persona x ablation x seed (and the transfer runs) through the proof, "
        "then report.md and the SVG plots. Rows already in OUT/results.jsonl are reused, so an "
        "interrupted sweep resumes; to run everything again, choose a new --out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--seeds",
        type=seeds_arg,
        default="0-4",
        help="seeds of the full method and of each ablation (default: 0-4)",
    )
    p.add_argument(
        "--transfer-seeds",
        type=seeds_arg,
        default="0-4",
        help="seeds of the transfer runs (trained on a, trained on b), or none (default: 0-4)",
    )
    p.add_argument("--nights", type=int, default=4, help="nights per run, 1 to 12 (default: 4)")
    p.add_argument("--workers", type=int, default=1, help="runs at once, in processes (default: 1)")
    p.add_argument(
        "--out",
        type=Path,
        default=RESULTS,
        metavar="DIR",
        help="folder for results.jsonl, report.md and the plots (default: experiments/results)",
    )
    return p


def _run(args: argparse.Namespace) -> int:
    if not args.seeds:
        raise usage("--seeds must name at least one seed (the full method is what all compare to)")
    days = ExperimentSpec().train_days
    if not 1 <= args.nights <= days:
        raise usage(
            f"--nights must be 1 to {days}, not {args.nights}",
            f"a night needs a new training day to read ({days} days are simulated)",
        )
    if args.workers < 1:
        raise usage(f"--workers must be 1 or more, not {args.workers}")
    rows = sweep(args.out, args.seeds, args.nights, args.workers, args.transfer_seeds)
    from experiments.report import write_report

    write_report(rows, args.out)
    print(f"wrote {args.out / 'report.md'} and its plots")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return guarded(lambda: _run(args))


if __name__ == "__main__":
    raise SystemExit(main())
