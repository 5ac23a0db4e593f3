"""The deterministic proof, from the command line.

    python -m experiments.run_experiment --persona researcher --assert-improves
        [--seed N] [--nights N] [--ablate gate ...] [--transfer] [--backend openai-loopback]
        [--json PATH] [--keep DIR]

``--assert-improves`` exits 1 unless the held-out score improves with its paired bootstrap
interval above zero AND the run's records show at least one harmful edit that was proposed and
rejected by the gate. Offline, no API key, deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from experiments.ablations import ABLATIONS
from experiments.personas import PERSONAS
from experiments.proof import ExperimentResult, ExperimentSpec, run
from experiments.render import summary_lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.run_experiment", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--persona", default="researcher", choices=sorted(PERSONAS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--nights", type=int, default=4)
    p.add_argument("--ablate", action="append", default=[], choices=sorted(ABLATIONS))
    p.add_argument("--profile", default="", choices=["", "a", "b"], help="simulated target model")
    p.add_argument(
        "--transfer", action="store_true", help="train on target a, score on b, vs trained on b"
    )
    p.add_argument("--backend", default="mock", choices=["mock", "openai-loopback"])
    p.add_argument("--assert-improves", action="store_true")
    p.add_argument("--json", type=Path, help="write the result as JSON here")
    p.add_argument("--keep", type=Path, help="keep the simulated world (transcripts, state) here")
    return p


def _spec(args: argparse.Namespace) -> ExperimentSpec:
    return ExperimentSpec(
        persona=args.persona,
        seed=args.seed,
        nights=args.nights,
        ablate=tuple(args.ablate),
        profile=args.profile,
    )


def run_cli(args: argparse.Namespace) -> list[ExperimentResult]:
    spec = _spec(args)
    if args.backend == "openai-loopback":
        from experiments.loopback import run_loopback

        return [run_loopback(spec, keep=args.keep)]
    if args.transfer:
        from experiments.transfer import run_transfer

        return list(run_transfer(spec))
    return [run(spec, keep=args.keep)]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    results = run_cli(args)
    for result in results:
        print("\n".join(summary_lines(result)))
    if args.keep:
        reports = sorted(args.keep.glob("state/projects/*/staging/*/report.html"))
        print(f"world kept in {args.keep}; the nights' staged reports: {len(reports)}")
        for report in reports[-2:]:
            print(f"  {report}")
    if args.json:
        args.json.write_text(
            json.dumps([asdict(r) for r in results], indent=2, default=str) + "\n", encoding="utf-8"
        )
    if not args.assert_improves:
        return 0
    result = results[0]
    problems = []
    if not result.improves:
        problems.append(
            f"held-out did not improve with an interval above zero "
            f"(CI [{result.ci_low:+.3f}, {result.ci_high:+.3f}])"
        )
    if not result.harmful_rejected:
        problems.append(
            "no harmful edit was proposed and rejected by the gate in the run's records"
        )
    for problem in problems:
        print(f"ASSERTION FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("PROOF HOLDS: held-out improved (CI above zero) and the gate rejected a harmful edit")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
