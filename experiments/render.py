"""Plain-text and Markdown views of an :class:`~experiments.proof.ExperimentResult`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from experiments.proof import EditRecord, ExperimentResult, NightRecord, SoFar


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


SHOWN = 3
"""Harmful edits listed per kind under a summary; the rest are counted (all are in ``--json``)."""


def _clip(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def head_lines(so_far: SoFar) -> list[str]:
    """What a run is and its baseline: true as soon as the baseline is scored."""
    spec = so_far.spec
    ablated = f", ablate {'+'.join(spec.ablate)}" if spec.ablate else ""
    target = f", target profile {spec.profile or 'default'}"
    if spec.eval_profile is not None and spec.eval_profile != spec.profile:
        target += f" (held-out scored on profile {spec.eval_profile or 'default'})"
    if spec.extra.get("backends.target"):
        target += f", target backend {spec.extra['backends.target']}"
    return [
        f"persona {spec.persona}, seed {spec.seed}, {spec.nights} nights over {spec.train_days} "
        f"training days{ablated}{target}",
        f"held-out: {so_far.held_out_n} requests from {spec.held_out_days} later days, "
        f"{spec.samples} replays each",
        f"  baseline (before night 1): {_pct(so_far.baseline)}",
    ]


def night_line(night: NightRecord, edits: Sequence[EditRecord]) -> str:
    """One night's held-out score, its gate decisions and each project's outcome."""
    outcomes = ", ".join(f"{p}: {o}" for p, o in sorted(night.outcomes.items()))
    accepted = sum(1 for e in edits if e.night == night.night and e.accepted)
    rejected = sum(1 for e in edits if e.night == night.night and not e.accepted)
    return (
        f"  night {night.night} (days 1-{night.days}, {night.sessions} sessions): "
        f"{_pct(night.held_out)}  [{accepted} accepted, {rejected} rejected; {outcomes}]"
    )


def progress_lines(so_far: SoFar) -> list[str]:
    """The lines a run has earned since it last told: its head, each night's line, its tail."""
    if so_far.result is not None:
        return tail_lines(so_far.result)
    if not so_far.nights:
        return head_lines(so_far)
    return [night_line(so_far.nights[-1], so_far.edits)]


def _listed(edits: Sequence[EditRecord], what: str, line: Callable[[EditRecord], str]) -> list[str]:
    more = len(edits) - SHOWN
    tail = [f"  ... and {more} more {what} (every edit is in --json)"] if more > 0 else []
    return [line(e) for e in edits[:SHOWN]] + tail


def tail_lines(result: ExperimentResult) -> list[str]:
    """The verdict, the edit and call totals, and the harmful edits the gate met."""
    lines = [
        f"  final: {_pct(result.final)}  (gain {result.delta * 100:+.1f} points, 95% paired "
        f"bootstrap CI [{result.ci_low * 100:+.1f}, {result.ci_high * 100:+.1f}]: {result.verdict})",
        f"edits: {len(result.accepted)} accepted, {len(result.rejected)} rejected; harmful "
        f"proposed {sum(1 for e in result.edits if e.harm)}, rejected by the gate "
        f"{len(result.harmful_rejected)}, landed {len(result.harmful_accepted)}",
        f"calls: {result.calls} in the nights ({result.tokens} tokens), "
        f"{result.held_out_calls} for held-out scoring",
    ]
    lines += _listed(
        result.harmful_rejected,
        "rejected harmful edits",
        lambda e: (
            f"  rejected harmful edit (night {e.night}, {e.harm}, gate delta "
            f"{e.delta:+.3f}): {e.op} {_clip(e.content or e.anchor)}"
        ),
    )
    lines += _listed(
        result.harmful_accepted,
        "harmful edits LANDED",
        lambda e: (
            f"  LANDED harmful edit (night {e.night}, {e.harm}): "
            f"{e.op} {_clip(e.content or e.anchor)}"
        ),
    )
    return lines


def summary_lines(result: ExperimentResult) -> list[str]:
    so_far = SoFar(result.spec, result.held_out_n, result.baseline, (), result.edits)
    nights = [night_line(n, result.edits) for n in result.nights]
    return [*head_lines(so_far), *nights, *tail_lines(result)]


def transfer_lines(cross: ExperimentResult, direct: ExperimentResult) -> list[str]:
    """The comparison a transfer run is for, from its two results."""
    source, target = cross.spec.profile, direct.spec.profile
    return [
        f"transfer: held-out on target {target}: {_pct(direct.baseline)} untrained, "
        f"{_pct(cross.final)} trained on {source}, {_pct(direct.final)} trained on {target}",
    ]


def result_json(result: ExperimentResult) -> dict[str, Any]:
    """The result's records plus the totals the summary prints, so the file says what the
    terminal said."""
    return {
        **asdict(result),
        "totals": {
            "accepted": len(result.accepted),
            "rejected": len(result.rejected),
            "harmful_proposed": sum(1 for e in result.edits if e.harm),
            "harmful_rejected": len(result.harmful_rejected),
            "harmful_landed": len(result.harmful_accepted),
            "calls": result.calls,
            "tokens": result.tokens,
            "held_out_calls": result.held_out_calls,
            "improves": result.improves,
            "proof_holds": result.proof_holds,
        },
    }
