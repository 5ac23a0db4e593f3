"""Reflect: turn minibatches of scored rollouts into proposed edits (one optimizer call each).

A malformed reply is repaired or re-asked once; if it still fails, that minibatch is dropped with
a logged reason — reflection never crashes a run. Backend failures do propagate: a dead backend
must stop the run, not silently yield no edits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from skillopt_core.backends._protocol import Backend, CompletionRequest
from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_core.parallel import parallel_map
from skillopt_core.prompts import fenced, load_prompt, one_line, without_placeholders
from skillopt_core.records import Edit, EditOp, ScoredRollout
from skillopt_core.structured import StructuredReplyError, complete_json

Kind = Literal["failure", "success"]

EDITS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": ["add", "delete", "replace"]},
                    "anchor": {"type": "string"},
                    "content": {"type": "string"},
                    "rationale": {"type": "string"},
                },
                "required": ["op"],
            },
        }
    },
    "required": ["edits"],
}


@dataclass(frozen=True)
class Minibatch:
    kind: Kind
    index: int
    cases: tuple[ScoredRollout, ...]


@dataclass(frozen=True)
class ReflectOutcome:
    minibatch: Minibatch
    edits: tuple[Edit, ...]
    dropped_reason: str = ""


def make_minibatches(scored: Sequence[ScoredRollout], size: int) -> list[Minibatch]:
    """Failures and successes split into minibatches of ``size`` (failures first)."""
    size = max(1, size)
    failures = [s for s in scored if s.score.hard < 1.0]
    successes = [s for s in scored if s.score.hard >= 1.0]
    batches: list[Minibatch] = []
    for kind, group in (("failure", failures), ("success", successes)):
        for start in range(0, len(group), size):
            batches.append(Minibatch(kind, len(batches), tuple(group[start : start + size])))  # type: ignore[arg-type]
    return batches


def _case_json(entry: ScoredRollout) -> dict[str, Any]:
    question = next(
        (t.get("content", "") for t in entry.rollout.trajectory if t.get("role") == "user"), ""
    )
    expected = entry.item.get("answers") or [entry.item.get("reference", "")]
    return {
        "item_id": entry.item.id,
        "input": without_placeholders(str(question))[:1500],
        "response": without_placeholders(entry.rollout.response)[:1500],
        "expected": [without_placeholders(str(e)) for e in expected],
        "reason": without_placeholders(entry.score.reason)[:400],
        "soft": round(entry.score.soft, 3),
    }


def _render_case(number: int, case: dict[str, Any]) -> str:
    """One case, every transcript- or model-written field in a fence it cannot close."""
    parts = [f"### Case {number} (item {one_line(case['item_id'])})"]
    for label, key in (
        ("Request", "input"),
        ("Response", "response"),
        ("Expected", "expected"),
        ("Judgement", "reason"),
    ):
        value = case[key]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"{label}:\n{fenced(text)}")
    return "\n".join(parts)


def _render_cases(cases: Sequence[dict[str, Any]]) -> str:
    return "\n\n".join(_render_case(n, c) for n, c in enumerate(cases, 1))


def reflect_one(
    optimizer: Backend,
    skill: str,
    batch: Minibatch,
    *,
    budget: int,
    rejected: RejectedBuffer,
    meta_notes: str,
    step: int,
    room: str = "",
) -> ReflectOutcome:
    """One minibatch's edits. ``room``: what the prompt says of the size budget (gate.room_note)."""
    cases = [_case_json(c) for c in batch.cases]
    rejected_view = rejected.for_prompt()
    failure = batch.kind == "failure"
    prompt = load_prompt("reflect").format(
        count=len(cases),
        kind="failures" if failure else "successes",
        kind_title="Failures" if failure else "Successes",
        goal="fix these failures" if failure else "keep these successes reliable",
        budget=budget,
        room=room,
        skill=fenced(skill, "markdown"),
        cases=_render_cases(cases),
        rejected=fenced(json.dumps(rejected_view, indent=1), "json") if rejected_view else "(none)",
        meta_notes=fenced(meta_notes) if meta_notes else "(none yet)",
    )
    request = CompletionRequest.of(
        prompt,
        max_tokens=2048,
        purpose="reflect",
        metadata={
            "kind": batch.kind,
            "cases": cases,
            "skill": skill,
            "budget": budget,
            "step": step,
            "minibatch": batch.index,
            "blocked": sorted(rejected.blocked_keys()),
        },
    )
    try:
        reply = complete_json(optimizer, request, EDITS_SCHEMA)
    except StructuredReplyError as exc:
        return ReflectOutcome(batch, (), f"dropped: {exc}")
    edits: list[Edit] = []
    for raw in reply["edits"]:
        try:
            edit = Edit.from_json({**raw, "source": batch.kind})
        except (KeyError, ValueError) as exc:
            return ReflectOutcome(batch, (), f"dropped: malformed edit {raw!r}: {exc}")
        if edit.op is EditOp.ADD and not edit.content.strip():
            continue
        edits.append(edit)
    return ReflectOutcome(batch, tuple(edits))


def reflect_all(
    optimizer: Backend,
    skill: str,
    batches: Sequence[Minibatch],
    *,
    budget: int,
    rejected: RejectedBuffer,
    meta_notes: str,
    step: int,
    workers: int,
    room: str = "",
) -> list[ReflectOutcome]:
    return parallel_map(
        lambda b: reflect_one(
            optimizer,
            skill,
            b,
            budget=budget,
            rejected=rejected,
            meta_notes=meta_notes,
            step=step,
            room=room,
        ),
        batches,
        workers,
    )
