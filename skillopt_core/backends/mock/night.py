"""How the simulated optimizer reads the feedback on replayed tasks (the nightly engine's checks).

A failed check names what was missing (``[needs: GUIDANCE]``). The simulated optimizer proposes
that guidance, reworded — unless the skill already carries it, in which case it blames the line
that overrides it (a contradiction, or a line so broad it crowds the need out) and proposes
deleting that line. At its seeded wrong rate it misjudges instead: a too-broad version of the need,
the opposite of another family's need, deleting a learned line, or an irrelevant rule; and
reflecting on replays that passed, it sometimes over-generalises a learned rule to every answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillopt_core.backends.mock.meaning import (
    carries,
    head,
    line_addresses,
    line_contradicts,
    read_line,
)
from skillopt_core.backends.mock.world import needs_in, normalise, stable_fraction

IRRELEVANT_NIGHT_GUIDANCE = "Prefer British spelling in prose."
"""A rule no task asks for: harmless, and the gate sees no gain in it."""


def unaddressed_need(reason: str, skill: str) -> str:
    """The first need the judge names that the skill does not carry yet, verbatim or reworded."""
    text = normalise(skill)
    return next(
        (n for n in needs_in(reason) if normalise(n) not in text and not carries(skill, n)), ""
    )


def interfering_line(skill: str, reason: str) -> str:
    """A failure whose needs the skill already carries is caused by another line: one that says
    the opposite, or one so broad it crowds the need out. That line ("" when none)."""
    for need in needs_in(reason):
        wanted = read_line(need)
        for line in skill.splitlines():
            reading = read_line(line)
            if line_contradicts(reading, wanted.concepts, wanted.negative) or (
                reading.broad and not line_addresses(reading, wanted.concepts, wanted.negative)
            ):
                return line.strip()
    return ""


def overgeneralised(
    skill: str, cases: Sequence[Mapping[str, Any]], salt: tuple[Any, ...], wrong_rate: float
) -> dict[str, str]:
    """Reflecting on replays that passed every check, the optimizer sometimes decides a learned
    rule worked so well it should apply to every answer: a too-broad edit ({} when not)."""
    if not any(c.get("reason") == "all checks passed" for c in cases):
        return {}  # not a replayed task (QA items keep their own world)
    learned = [line for line in skill.splitlines() if line.startswith("- ")]
    learned = [line for line in learned if not read_line(line).broad]
    if not learned or stable_fraction(*salt, "overgeneralise") >= wrong_rate:
        return {}
    line = learned[int(stable_fraction(*salt, "which") * len(learned))]
    return {
        "op": "add",
        "anchor": "",
        "content": f"- In every answer, whatever the request: {head(line).rstrip('.')}.",
        "rationale": "this rule keeps working; apply it everywhere",
    }


def opposite(guidance: str) -> str:
    """An instruction that says the opposite of ``guidance``'s instruction."""
    text = guidance.strip().rstrip(".")
    if read_line(guidance).negative:
        rest = text.split(" ", 1)[-1]
        return (
            f"It is fine to {rest[:1].lower()}{rest[1:]}; strict rules here only slow things down"
        )
    return f"Never {text[:1].lower()}{text[1:]}; it clutters the answer"


def misjudged_night_edit(
    skill: str, hint: str, others: Sequence[str], pick: float
) -> dict[str, str]:
    """A plausible but wrong proposal for a replayed task: too broad, contradicting another
    family's requirement, deleting a learned line, or irrelevant."""
    rival = [n for n in others if read_line(n).concepts != read_line(hint).concepts]
    learned = [line for line in skill.splitlines() if line.startswith("- ")]
    if pick < 0.35 or (pick < 0.7 and not rival):
        return {
            "op": "add",
            "anchor": "",
            "content": f"- In every answer, whatever the request: {head(hint).rstrip('.')}.",
            "rationale": "this requirement seems to matter everywhere",
        }
    if pick < 0.7:
        other = rival[int(pick * 1000) % len(rival)]
        return {
            "op": "add",
            "anchor": "",
            "content": f"- {opposite(other)}.",
            "rationale": "answers look cluttered",
        }
    if pick < 0.85 and learned:
        return {
            "op": "delete",
            "anchor": learned[int(pick * 1000) % len(learned)].strip(),
            "content": "",
            "rationale": "looks redundant",
        }
    return {
        "op": "add",
        "anchor": "",
        "content": f"- {IRRELEVANT_NIGHT_GUIDANCE}",
        "rationale": "may be related",
    }
