"""Epoch-boundary updates: the slow update (longitudinal guidance written into a protected block
of the skill) and the meta notes (optimizer-side memory of which edits helped; never shipped)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillopt_core.backends._protocol import Backend, CompletionRequest
from skillopt_core.optim.evaluate import Evaluator
from skillopt_core.optim.evidence import unusable_kind
from skillopt_core.prompts import load_prompt
from skillopt_core.records import Item, ScoredRollout
from skillopt_core.skill import MARKER_TOKEN, set_protected

SLOW_UPDATE_BLOCK = "slow-update"  # the size budget counts it (gate.LEARNED_REGIONS)
MAX_GUIDANCE_LINES = 8


@dataclass(frozen=True)
class SlowUpdate:
    guidance: str
    candidate: str | None  # the current skill with the guidance block written, None if no guidance
    improved: tuple[str, ...]
    regressed: tuple[str, ...]
    persistent: tuple[str, ...]


def _brief(entry: ScoredRollout) -> dict[str, Any]:
    return {
        "item_id": entry.item.id,
        "response": entry.rollout.response[:600],
        "expected": list(entry.item.get("answers") or [entry.item.get("reference", "")]),
        "reason": entry.score.reason[:300],
    }


def slow_update(
    optimizer: Backend,
    evaluator: Evaluator,
    previous: str,
    current: str,
    items: Sequence[Item],
    epoch: int,
) -> SlowUpdate:
    """Compare the epoch's first and last skill on the same items and ask for durable guidance."""
    before = evaluator.run(previous, items)
    after = evaluator.run(current, items)
    improved, regressed, persistent = [], [], []
    for old, new in zip(before, after, strict=True):
        if old.score.hard < new.score.hard:
            improved.append(new)
        elif old.score.hard > new.score.hard:
            regressed.append(new)
        elif new.score.hard < 1.0:
            persistent.append(new)
    prompt = load_prompt("slow_update").format(
        count=len(items),
        epoch=epoch,
        max_lines=MAX_GUIDANCE_LINES,
        previous=previous,
        current=current,
        improved=json.dumps([_brief(e) for e in improved[:10]], indent=1),
        regressed=json.dumps([_brief(e) for e in regressed[:10]], indent=1),
        persistent=json.dumps([_brief(e) for e in persistent[:10]], indent=1),
    )
    request = CompletionRequest.of(
        prompt,
        max_tokens=800,
        purpose="slow_update",
        metadata={
            "skill": current,
            "epoch": epoch,
            "persistent_failures": [_brief(e) for e in persistent],
            "improved": [_brief(e) for e in improved],
        },
    )
    lines = [
        ln
        for ln in optimizer.complete(request).text.strip().splitlines()
        if ln.strip() and MARKER_TOKEN not in ln
    ]
    guidance = "\n".join(lines[:MAX_GUIDANCE_LINES])
    candidate = None
    if guidance:
        candidate = set_protected(current, SLOW_UPDATE_BLOCK, f"## Long-term guidance\n{guidance}")
    return SlowUpdate(
        guidance,
        candidate,
        tuple(e.item.id for e in improved),
        tuple(e.item.id for e in regressed),
        tuple(e.item.id for e in persistent),
    )


def meta_update(
    optimizer: Backend,
    previous_notes: str,
    accepted: Sequence[dict[str, Any]],
    rejected: Sequence[dict[str, Any]],
) -> str:
    """Refresh the optimizer's private notes from the edit history. An empty reply or a refusal
    (an optimizer that stopped answering part-way through a run) keeps the previous notes: they
    carry what earlier epochs and nights learned, and would otherwise be replaced by nothing."""
    prompt = load_prompt("meta").format(
        previous=previous_notes or "(none)",
        accepted=json.dumps(list(accepted)[-30:], indent=1),
        rejected=json.dumps(list(rejected)[-30:], indent=1),
    )
    request = CompletionRequest.of(
        prompt,
        max_tokens=800,
        purpose="meta",
        metadata={"accepted": list(accepted), "rejected": list(rejected)},
    )
    notes = optimizer.complete(request).text.strip()
    return previous_notes if unusable_kind(notes) else notes
