"""Plain-text and Markdown views of an :class:`~experiments.proof.ExperimentResult`."""

from __future__ import annotations

from experiments.proof import ExperimentResult


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def summary_lines(result: ExperimentResult) -> list[str]:
    spec = result.spec
    ablated = f", ablate {'+'.join(spec.ablate)}" if spec.ablate else ""
    target = f", target profile {spec.profile or 'default'}"
    if spec.eval_profile is not None and spec.eval_profile != spec.profile:
        target += f" (held-out scored on profile {spec.eval_profile or 'default'})"
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
