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
from pathlib import Path

from experiments._cli import check_output_file, guarded, usage, write_whole
from experiments.ablations import ABLATIONS, ABOUT
from experiments.personas import PERSONAS
from experiments.proof import ExperimentResult, ExperimentSpec, SoFar, run
from experiments.render import progress_lines, result_json, transfer_lines
from experiments.world import check_keep

TRAIN_DAYS = ExperimentSpec().train_days

EXAMPLES = """\
examples:
  %(prog)s --persona researcher --assert-improves      # the proof, ~10 s
  %(prog)s --persona writer --ablate gate --assert-improves   # exits 1: harm lands
  %(prog)s --transfer                                  # train on target a, score on b
  %(prog)s --backend openai-loopback                   # through the real openai SDK
  %(prog)s --seed 3 --nights 2 --json out.json --keep world/

exit codes: 0 ok (and the proof holds, with --assert-improves), 1 the proof fails or a file
could not be written, 2 a flag we cannot use, 130 interrupted, 143 stopped by SIGTERM.
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.run_experiment",
        description="Run a simulated developer's days and nights through the real nightly "
        "pipeline (mock backend, offline, deterministic for a seed) and score held-out requests "
        "before night 1 and after every night.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--persona",
        default="researcher",
        choices=sorted(PERSONAS),
        help="simulated developer (default: researcher)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the simulated world, 0 or more (default: 0)"
    )
    p.add_argument(
        "--nights",
        type=int,
        default=4,
        help=f"nights over the {TRAIN_DAYS} training days, 1 to {TRAIN_DAYS} (default: 4)",
    )
    p.add_argument(
        "--ablate",
        action="append",
        default=[],
        choices=sorted(ABLATIONS),
        metavar="NAME",
        help="remove one mechanism (repeatable); NAME is one of: "
        + "; ".join(f"{name} ({ABOUT[name]})" for name in sorted(ABLATIONS)),
    )
    p.add_argument(
        "--profile",
        default="",
        choices=["", "a", "b"],
        metavar="{a,b}",
        help="simulated target: a forgets content, b is careless with form "
        "(default: a target that meets no requirement unguided)",
    )
    p.add_argument(
        "--transfer",
        action="store_true",
        help="train on target a and score on b, then train and score on b, and compare",
    )
    p.add_argument(
        "--backend",
        default="mock",
        choices=["mock", "openai-loopback"],
        help="mock: the simulated world in-process (default); openai-loopback: the target is "
        "reached through the openai SDK and HTTP, against a fake server on 127.0.0.1",
    )
    p.add_argument(
        "--assert-improves",
        action="store_true",
        help="exit 1 unless held-out improves (interval above zero) and the gate rejected a "
        "harmful edit",
    )
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the result as JSON here")
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep the simulated world (transcripts, engine state, staged reports) in DIR, "
        "a new or empty folder (default: a temporary folder, removed at the end)",
    )
    return p


def check(args: argparse.Namespace) -> None:
    """Refuse what would fail or mislead only after the run, before any work."""
    if args.seed < 0:
        raise usage(f"--seed must be 0 or more, not {args.seed}")
    if not 1 <= args.nights <= TRAIN_DAYS:
        raise usage(
            f"--nights must be 1 to {TRAIN_DAYS}, not {args.nights}",
            f"a night needs a new training day to read ({TRAIN_DAYS} days are simulated)",
        )
    if args.transfer:
        clash = [
            flag
            for flag, given in (
                ("--profile", args.profile),
                ("--backend openai-loopback", args.backend != "mock"),
                ("--assert-improves", args.assert_improves),
                ("--keep", args.keep is not None),
            )
            if given
        ]
        if clash:
            raise usage(
                f"--transfer does not combine with {', '.join(clash)}",
                "a transfer runs two trainings, on targets a and b, with the mock backend",
            )
    if args.json is not None:
        check_output_file(args.json, "--json")
    if args.keep is not None:
        check_keep(args.keep)


def _spec(args: argparse.Namespace) -> ExperimentSpec:
    return ExperimentSpec(
        persona=args.persona,
        seed=args.seed,
        nights=args.nights,
        ablate=tuple(args.ablate),
        profile=args.profile,
    )


def _show(so_far: SoFar) -> None:
    """Print the run's lines as they become true, so a long run is never silent."""
    print("\n".join(progress_lines(so_far)), flush=True)


def run_cli(args: argparse.Namespace) -> list[ExperimentResult]:
    """Run what the flags ask for; each run's head and nights are printed as they land."""
    spec = _spec(args)
    if args.backend == "openai-loopback":
        from experiments.loopback import run_loopback

        return [run_loopback(spec, keep=args.keep, progress=_show)]
    if args.transfer:
        from experiments.transfer import run_transfer

        return list(run_transfer(spec, progress=_show))
    return [run(spec, keep=args.keep, progress=_show)]


def _proof_problems(result: ExperimentResult) -> list[str]:
    """What this run did not show, each said with what to try (a persona, a seed or a number of
    nights whose simulated optimizer proposed nothing harmful never put the gate to the test:
    that is a run that shows less, not a gate that failed)."""
    problems = []
    if not result.improves:
        problems.append(
            f"held-out did not improve with an interval above zero "
            f"(CI [{result.ci_low:+.3f}, {result.ci_high:+.3f}])"
        )
    if result.harmful_rejected:
        return problems
    if not any(e.harm for e in result.edits):
        problems.append(
            "the gate was not put to the test: the simulated optimizer proposed no harmful edit "
            "in this run (try --nights 4, the default, or another --seed)"
        )
    else:
        problems.append(
            "no harmful edit proposed was turned down on its own evidence (a lower validation "
            "score with the edit alone); see the list above"
        )
    return problems


def _run(args: argparse.Namespace, unfinished: list[Path]) -> int:
    check(args)
    unfinished += [args.keep] if args.keep is not None else []
    results = run_cli(args)
    unfinished.clear()
    if args.transfer:
        print("\n".join(transfer_lines(*results)))
    if args.keep:
        reports = sorted(args.keep.glob("state/projects/*/staging/*/report.html"))
        print(f"world kept in {args.keep}; the nights' staged reports: {len(reports)}")
        for report in reports[-2:]:
            print(f"  {report}")
    if args.json:
        text = json.dumps([result_json(r) for r in results], indent=2, default=str)
        write_whole(args.json, text + "\n")
    if not args.assert_improves:
        return 0
    problems = _proof_problems(results[0])
    for problem in problems:
        print(f"PROOF NOT SHOWN: {problem}", file=sys.stderr)
    if not problems:
        print("PROOF HOLDS: held-out improved (CI above zero) and the gate rejected a harmful edit")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    unfinished: list[Path] = []  # a --keep folder a stopped or failed run has begun to fill
    code = guarded(lambda: _run(args, unfinished))
    for world in unfinished:
        if world.is_dir() and any(world.iterdir()):
            print(
                f"  note: the unfinished world is left in {world} (a run does not resume); "
                "remove it or name another --keep to run again",
                file=sys.stderr,
            )
    return code


if __name__ == "__main__":
    sys.exit(main())
