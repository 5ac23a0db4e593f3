"""The sweep: every persona x ablation x seed through the proof, then the report and the plots.

    python -m experiments.sweep [--seeds 0-4] [--nights 4] [--workers 1] [--out experiments/results]

Writes ``results.jsonl`` (one run per line; rows already there are reused, so an interrupted sweep
resumes), ``report.md`` (tables: mean ± sd and bootstrap intervals of held-out after N nights,
edits accepted, harmful edits landed, calls) and SVG plots. Deterministic for the seeds.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.ablations import ABLATIONS
from experiments.personas import PERSONAS
from experiments.proof import ExperimentResult, ExperimentSpec

FULL = "none"
TRANSFER = ("transfer a->b", "trained on b")


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


def read_rows(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {r["key"]: r for r in rows}


def sweep(
    out: Path, seeds: list[int], nights: int, workers: int, transfer_seeds: list[int]
) -> list[dict[str, Any]]:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.jsonl"
    done = read_rows(path)
    todo = [j for j in jobs(seeds, nights, transfer_seeds) if j.key not in done]
    with path.open("a", encoding="utf-8") as sink:
        if workers <= 1:
            results: Iterator[dict[str, Any]] = map(run_job, todo)
        else:
            pool = ProcessPoolExecutor(workers)
            results = pool.map(run_job, todo)
        for number, result in enumerate(results, 1):
            sink.write(json.dumps(result) + "\n")
            sink.flush()
            print(
                f"[{number}/{len(todo)}] {result['key']}: final {result['final']:.3f}", flush=True
            )
    wanted = {j.key for j in jobs(seeds, nights, transfer_seeds)}
    return [r for k, r in read_rows(path).items() if k in wanted]


def _seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m experiments.sweep", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--seeds", default="0-4")
    p.add_argument("--transfer-seeds", default="0-4")
    p.add_argument("--nights", type=int, default=4)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = p.parse_args(argv)
    rows = sweep(
        args.out, _seeds(args.seeds), args.nights, args.workers, _seeds(args.transfer_seeds)
    )
    from experiments.report import write_report

    write_report(rows, args.out)
    print(f"wrote {args.out / 'report.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
