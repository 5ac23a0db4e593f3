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
    max_chars: int = 0  # the editable text's size budget (0 = none): see over_budget


ROOM_SHARE = 0.75  # the optimizer hears of the budget once the text holds this share of it


# Protected regions the optimizer itself writes (slow.SLOW_UPDATE_BLOCK): the budget counts them.
LEARNED_REGIONS = ("slow-update",)


def learned_chars(text: str) -> int:
    """How long the text the optimizer wrote is: the editable text
    (:func:`~skillopt_core.skill.document.editable_chars`) and the protected regions only the
    optimizer writes (the slow update's guidance), but not the frontmatter or the user's."""
    from skillopt_core.skill.document import editable_chars, protected_regions

    owned = (r for r in protected_regions(text) if r.name in LEARNED_REGIONS)
    return editable_chars(text) + sum(r.end - r.start for r in owned)


def room_note(skill: str, policy: GatePolicy) -> str:
    """A sentence for the reflection prompt once ``skill`` nears its budget ("" before): told
    only at the gate, an optimizer keeps proposing additions that are refused unweighed."""
    size = learned_chars(skill)
    if not policy.max_chars or size < ROOM_SHARE * policy.max_chars:
        return ""
    return (
        f" The editable text holds {size} of at most {policy.max_chars} characters: prefer "
        "`replace` and `delete` edits that make it shorter; an edit that makes it longer past "
        "that budget is refused."
    )


def over_budget(current: str, candidate: str, policy: GatePolicy) -> str:
    """Why ``candidate`` is refused before any evaluation, or "": it would make the learned text
    (:func:`learned_chars`) longer than ``max_chars`` and longer than it is now. A skill is read
    into every session of the agent that loads it, so what it costs there must not grow night
    after night; past the budget, only edits that shorten it (or keep its length) are weighed.
    No gate setting bypasses it: the ungated ablation and a force-accepted slow update too."""
    if not policy.max_chars:
        return ""
    after = learned_chars(candidate)
    if after <= policy.max_chars or after <= learned_chars(current):
        return ""
    return (
        f"the skill would grow to {after} characters, over its budget of {policy.max_chars}: "
        "an edit must replace or delete to make room"
    )


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
