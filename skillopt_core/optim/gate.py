"""The validation gate: a candidate replaces the current skill only on strict improvement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from skillopt_core.records import Decision, EvalResult

Metric = Literal["hard", "soft", "mixed"]


@dataclass(frozen=True)
class GatePolicy:
    metric: Metric = "hard"
    mixed_weight: float = 0.5
    no_regression: bool = False  # also reject when any single item gets worse
    min_delta: float = 0.0  # improvement must exceed this (strict: ties always rejected)


def _per_item(result: EvalResult, policy: GatePolicy) -> dict[str, float]:
    w = policy.mixed_weight
    if policy.metric == "hard":
        return dict(result.per_item_hard)
    if policy.metric == "soft":
        return dict(result.per_item_soft)
    return {
        k: (1 - w) * result.per_item_hard[k] + w * result.per_item_soft.get(k, 0.0)
        for k in result.per_item_hard
    }


def decide(current: EvalResult, candidate: EvalResult, policy: GatePolicy) -> Decision:
    """Pure comparison of two evaluations on the same split."""
    cur = current.metric(policy.metric, policy.mixed_weight)
    cand = candidate.metric(policy.metric, policy.mixed_weight)
    before, after = _per_item(current, policy), _per_item(candidate, policy)
    deltas = {k: round(after.get(k, 0.0) - v, 6) for k, v in before.items()}
    changed = {k: d for k, d in deltas.items() if d != 0}
    # Written as "not improved" so that a NaN anywhere rejects rather than accepts.
    if not cand - cur > max(policy.min_delta, 0.0):
        verdict = "tie" if cand == cur else "worse"
        reason = f"{policy.metric} {cand:.4f} vs {cur:.4f}: {verdict}, strict improvement required"
        return Decision(False, policy.metric, cur, cand, reason, changed)
    if policy.no_regression:
        regressed = sorted(k for k, d in deltas.items() if d < 0)
        if regressed:
            reason = f"improves {policy.metric} but regresses {len(regressed)} item(s): {', '.join(regressed[:5])}"
            return Decision(False, policy.metric, cur, cand, reason, changed)
    return Decision(
        True, policy.metric, cur, cand, f"{policy.metric} {cur:.4f} -> {cand:.4f}", changed
    )
