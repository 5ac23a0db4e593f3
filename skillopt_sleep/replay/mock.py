"""The simulated world for replays (the ``mock`` backend's ``replay`` and ``judge`` purposes).

A replayed answer passes a rule check when the skill carries guidance that addresses it *on
meaning* (a line carrying the check's key concepts with the same polarity, however it is worded;
see :mod:`skillopt_core.backends.mock.meaning`), or the instruction :func:`guidance_for` states;
otherwise it makes the check's characteristic mistake. Harm is simulated too:

- a line that says the opposite of a requirement (``Never include the publication year``) makes
  the target fail that requirement;
- a too-broad line (``In every answer, whatever the request: ...``) is over-applied and crowds out
  a requirement it does not address in :data:`BROAD_HARM` of the replays;
- the core world's plausible-but-harmful guidance makes the target forget half of what it knew.

A small seeded share of answers is wrong whatever the skill says, so the gate has real noise to see
through. The target's *profile* (a mock backend option) names a simulated model that already meets
some kinds of requirement without guidance (:data:`PROFILES`), so a skill trained on one target can
be measured on the other. Deterministic for a seed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skillopt_core.backends._protocol import CompletionRequest
from skillopt_core.backends.mock.handlers import HANDLERS, NOISE_RATE, MockSettings
from skillopt_core.backends.mock.meaning import (
    Reading,
    concepts,
    line_addresses,
    line_contradicts,
    read_line,
)
from skillopt_core.backends.mock.world import harmful_in, normalise, stable_fraction
from skillopt_sleep.records import Check
from skillopt_sleep.replay.checks import guidance_for
from skillopt_sleep.replay.patterns import regex_problem

BROAD_HARM = 0.6
"""Share of replays in which a too-broad line crowds out a requirement it does not address."""

PROFILES: Mapping[str, frozenset[str]] = {
    "": frozenset(),
    "a": frozenset({"regex", "not_regex", "max_chars", "not_contains"}),
    "b": frozenset({"contains", "section_present", "tool_called"}),
}
"""Check kinds each simulated target meets without guidance: ``a`` is careful with form (formats,
length, prohibitions) but forgets content; ``b`` covers content (named things, sections, tools) but
is careless with form. The default target meets none."""

_PATTERN_WORDS = re.compile(r"(?<!\\)[A-Za-z]{2,}")


def need(check: Check) -> tuple[frozenset[str], bool]:
    """The concepts a line must carry to address ``check``, and whether it is a prohibition."""
    kind, value = check.kind, check.value
    if kind in ("regex", "not_regex"):
        literal = re.sub(r"\\[a-zA-Z]", " ", value)
        found = concepts(" ".join(_PATTERN_WORDS.findall(literal)))
        if "(?m)^" in value or value.startswith("^"):
            found |= {"own", "line"}
        return frozenset(found), kind == "not_regex"
    if kind == "max_chars":
        return frozenset({"brief"}), False
    if kind == "section_present":
        return concepts(value) | {"section"}, False
    if kind == "tool_called":
        return concepts(value) | {"tool"}, False
    return concepts(value), kind == "not_contains"


def _readings(skill: str) -> list[Reading]:
    return [read_line(line) for line in skill.splitlines() if line.strip()]


def addressed(check: Check, skill: str, readings: list[Reading] | None = None) -> bool:
    text = normalise(skill)
    if normalise(guidance_for(check)) in text:
        return True
    concepts_needed, negative = need(check)
    if concepts_needed and any(
        line_addresses(r, concepts_needed, negative)
        for r in (readings if readings is not None else _readings(skill))
    ):
        return True
    if check.kind == "regex" and not concepts_needed:
        return _shows_example(check.value, skill)
    if check.kind in ("contains", "section_present", "tool_called") and len(check.value) > 3:
        return normalise(check.value) in text
    return False


def _shows_example(pattern: str, skill: str) -> bool:
    """The skill shows an example of the wanted form (a format with no words, like v1.2.3)."""
    inline = re.sub(r"^\(\?m\)\^\\s\*|\\s\*\$$", "", pattern)
    if regex_problem(inline):
        return False
    return re.search(inline, skill) is not None


def contradicted(check: Check, readings: list[Reading]) -> bool:
    concepts_needed, negative = need(check)
    return any(line_contradicts(r, concepts_needed, negative) for r in readings)


def crowded_out(check: Check, readings: list[Reading]) -> bool:
    """A too-broad line is in the skill and does not address this check."""
    concepts_needed, negative = need(check)
    return any(r.broad and not line_addresses(r, concepts_needed, negative) for r in readings)


def _regex_example(check: Check, task: Mapping[str, Any]) -> str:
    """A line matching the check's pattern, taken from its description or the request."""
    if regex_problem(check.value):
        return ""
    pattern = re.compile(check.value)
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
        limit = int(value) if value.isascii() and value.isdigit() else 0
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
    readings = _readings(skill)
    native = PROFILES.get(settings.profile, frozenset())
    lines = [f"Done: {str(task.get('intent', ''))[:160]}"]
    for index, raw in enumerate(task.get("checks", [])):
        check = Check(str(raw["kind"]), str(raw["value"]), str(raw.get("description", "")))
        roll = stable_fraction(settings.seed, task_id, sample, index, "harm")
        ok = (check.kind in native or addressed(check, skill, readings)) and not noisy
        if ok and contradicted(check, readings):
            ok = False
        if ok and roll < BROAD_HARM and crowded_out(check, readings):
            ok = False
        if ok and harmed and roll < 0.5:
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
