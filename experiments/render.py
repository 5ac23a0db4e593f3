"""Plain-text and Markdown views of an :class:`~experiments.proof.ExperimentResult`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from experiments.proof import ExperimentResult


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def summary_lines(result: ExperimentResult) -> list[str]:
    spec = result.spec
    ablated = f", ablate {'+'.join(spec.ablate)}" if spec.ablate else ""
    target = f", target profile {spec.profile or 'default'}"
    if spec.eval_profile is not None and spec.eval_profile != spec.profile:
        target += f" (held-out scored on profile {spec.eval_profile or 'default'})"
    if spec.extra.get("backends.target"):
        target += f", target backend {spec.extra['backends.target']}"
    lines = [
        f"persona {spec.persona}, seed {spec.seed}, {spec.nights} nights over {spec.train_days} "
        f"training days{ablated}{target}",
        f"held-out: {result.held_out_n} requests from {spec.held_out_days} later days, "
        f"{spec.samples} replays each",
        f"  baseline (before night 1): {_pct(result.baseline)}",
    ]
    for night in result.nights:
        outcomes = ", ".join(f"{p}: {o}" for p, o in sorted(night.outcomes.items()))
        accepted = sum(1 for e in result.accepted if e.night == night.night)
        rejected = sum(1 for e in result.rejected if e.night == night.night)
        lines.append(
            f"  night {night.night} (days 1-{night.days}, {night.sessions} sessions): "
            f"{_pct(night.held_out)}  [{accepted} accepted, {rejected} rejected; {outcomes}]"
        )
    lines += [
        f"  final: {_pct(result.final)}  (gain {result.delta * 100:+.1f} points, 95% paired "
        f"bootstrap CI [{result.ci_low * 100:+.1f}, {result.ci_high * 100:+.1f}]: {result.verdict})",
        f"edits: {len(result.accepted)} accepted, {len(result.rejected)} rejected; harmful "
        f"proposed {sum(1 for e in result.edits if e.harm)}, rejected by the gate "
        f"{len(result.harmful_rejected)}, landed {len(result.harmful_accepted)}",
        f"calls: {result.calls} in the nights ({result.tokens} tokens), "
        f"{result.held_out_calls} for held-out scoring",
    ]
    for edit in result.harmful_rejected[:3]:
        lines.append(
            f"  rejected harmful edit (night {edit.night}, {edit.harm}, gate delta "
            f"{edit.delta:+.3f}): {edit.op} {(edit.content or edit.anchor)[:90]}"
        )
    for edit in result.harmful_accepted[:3]:
        lines.append(
            f"  LANDED harmful edit (night {edit.night}, {edit.harm}): "
            f"{edit.op} {(edit.content or edit.anchor)[:90]}"
        )
    return lines


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
