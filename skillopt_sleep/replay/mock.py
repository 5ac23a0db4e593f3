"""The simulated world for replays (the ``mock`` backend's ``replay`` and ``judge`` purposes).

A replayed answer passes a rule check when the skill carries the guidance that addresses it
(the instruction :func:`guidance_for` states, or the checked value itself); otherwise it makes the
check's characteristic mistake. Plausible-but-harmful guidance in the skill makes the target forget
half of what it knew, and a small seeded share of answers is wrong whatever the skill says, so the
gate has real noise to see through. Deterministic for a seed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skillopt_core.backends._protocol import CompletionRequest
from skillopt_core.backends.mock.handlers import HANDLERS, NOISE_RATE, MockSettings
from skillopt_core.backends.mock.world import harmful_in, normalise, stable_fraction
from skillopt_sleep.records import Check
from skillopt_sleep.replay.checks import guidance_for


def addressed(check: Check, skill: str) -> bool:
    text = normalise(skill)
    if normalise(guidance_for(check)) in text:
        return True
    if check.kind in ("contains", "section_present", "tool_called") and len(check.value) > 3:
        return normalise(check.value) in text
    return False


def _regex_example(check: Check, task: Mapping[str, Any]) -> str:
    """A line matching the check's pattern, taken from its description or the request."""
    try:
        pattern = re.compile(check.value)
    except re.error:
        return ""
    source = f"{check.description} {task.get('intent', '')}"
    words = [w.strip("'\".,;()") for w in source.split()]
    for candidate in [*words, *source.splitlines()]:
        if candidate and pattern.search(candidate):
            return candidate
    return ""


def _render(check: Check, ok: bool, task: Mapping[str, Any]) -> list[str]:
    kind, value = check.kind, check.value
    if kind == "contains":
        return [f"This takes care of the {value} part."] if ok else []
    if kind == "not_contains":
        return [] if ok else [f"I went ahead and used {value}."]
    if kind == "section_present":
        return [f"## {value}", f"Details for {value}."] if ok else []
    if kind == "max_chars":
        limit = int(value) if value.isdigit() else 0
        return (
            [] if ok or not limit else ["Additional background: " + "detail " * (limit // 6 + 10)]
        )
    if kind == "tool_called":
        return [f"I ran {value} to check."] if ok else []
    if kind == "regex":
        example = _regex_example(check, task) if ok else ""
        return [example] if example else []
    if kind == "not_regex":
        example = _regex_example(check, task)
        return [example] if example and not ok else []
    return []


@HANDLERS.register("replay")
def replay_answer(request: CompletionRequest, settings: MockSettings) -> str:
    task: Mapping[str, Any] = request.metadata.get("task", {})
    skill = str(request.metadata.get("skill", ""))
    sample = int(request.metadata.get("sample", 0))
    task_id = task.get("id", "")
    noisy = stable_fraction(settings.seed, task_id, sample, "replay-noise") < NOISE_RATE
    harmed = bool(harmful_in(skill))
    lines = [f"Done: {str(task.get('intent', ''))[:160]}"]
    for index, raw in enumerate(task.get("checks", [])):
        check = Check(str(raw["kind"]), str(raw["value"]), str(raw.get("description", "")))
        ok = addressed(check, skill) and not noisy
        if ok and harmed and stable_fraction(settings.seed, task_id, sample, index, "harm") < 0.5:
            ok = False
        lines.extend(_render(check, ok, task))
    return "\n".join(lines)


@HANDLERS.register("judge")
def judge_answer(request: CompletionRequest, settings: MockSettings) -> str:
    answer = str(request.metadata.get("answer", ""))
    passed = bool(answer.strip()) and "I went ahead" not in answer
    reason = (
        "meets the rubric" if passed else "the answer repeats a mistake the developer corrected"
    )
    return f'{{"pass": {str(passed).lower()}, "score": {1.0 if passed else 0.0}, "reason": "{reason}"}}'
