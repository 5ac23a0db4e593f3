"""The simulated world behind the ``mock`` backend.

A *rule* is a piece of procedural knowledge the target lacks by default. Without guidance that
mentions the rule, the simulated target makes the rule's characteristic mistake; with it, the target
answers correctly. The simulated optimizer reads failures, diagnoses which rule's mistake they show,
and proposes that rule's guidance — except when its seeded "judgement" goes wrong and it proposes an
irrelevant or harmful edit instead, which is what gives the validation gate real work.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

_NUMBER_WORDS = {
    0: "zero",
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
    13: "thirteen",
    14: "fourteen",
    15: "fifteen",
    16: "sixteen",
    17: "seventeen",
    18: "eighteen",
    19: "nineteen",
    20: "twenty",
    30: "thirty",
    40: "forty",
    50: "fifty",
    60: "sixty",
    70: "seventy",
    80: "eighty",
    90: "ninety",
}


def number_to_words(value: int) -> str:
    if value in _NUMBER_WORDS:
        return _NUMBER_WORDS[value]
    if value < 100:
        return f"{_NUMBER_WORDS[value - value % 10]}-{_NUMBER_WORDS[value % 10]}"
    if value < 1000:
        head = f"{_NUMBER_WORDS[value // 100]} hundred"
        return head if value % 100 == 0 else f"{head} and {number_to_words(value % 100)}"
    return str(value)


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def stable_fraction(*parts: object) -> float:
    """A deterministic pseudo-random number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _spell_digits(answer: str) -> str:
    return re.sub(r"\d+", lambda m: number_to_words(int(m.group())), answer)


def _surname_only(answer: str) -> str:
    words = answer.split()
    return words[-1] if words else answer


def _wrap_in_sentence(answer: str) -> str:
    return f"Based on the passage, the answer is {answer}."


def _long_date(answer: str) -> str:
    return f"on 14 March {answer}"


def _drop_unit(answer: str) -> str:
    words = answer.split()
    return words[0] if words else answer


def _hedged_yes_no(answer: str) -> str:
    return "That appears to be correct." if answer.lower() == "yes" else "That does not seem right."


@dataclass(frozen=True)
class Rule:
    """Procedural knowledge the simulated target needs for some items.

    ``keywords``: phrases whose presence in the skill (normalised) means the rule is addressed.
    ``mistake``: what the target answers without it. ``symptom``: how the optimizer recognises the
    mistake from (response, expected answer).
    """

    name: str
    guidance: str
    keywords: tuple[str, ...]
    mistake: Callable[[str], str]
    symptom: Callable[[str, str], bool]

    def addressed_by(self, skill: str) -> bool:
        text = normalise(skill)
        return any(normalise(k) in text for k in self.keywords)


def _shows_words_for_digits(response: str, expected: str) -> bool:
    return bool(re.search(r"\d", expected)) and normalise(response) == normalise(
        _spell_digits(expected)
    )


def _shows_surname(response: str, expected: str) -> bool:
    return len(expected.split()) > 1 and normalise(response) == normalise(expected.split()[-1])


def _shows_sentence(response: str, expected: str) -> bool:
    return (
        normalise(expected) in normalise(response)
        and len(response.split()) > len(expected.split()) + 3
    )


def _shows_long_date(response: str, expected: str) -> bool:
    return (
        bool(re.fullmatch(r"\d{4}", expected))
        and expected in response
        and response.strip() != expected
    )


def _shows_missing_unit(response: str, expected: str) -> bool:
    return len(expected.split()) == 2 and normalise(response) == normalise(expected.split()[0])


def _shows_hedge(response: str, expected: str) -> bool:
    return (
        expected.lower() in ("yes", "no")
        and normalise(response) != normalise(expected)
        and ("appears" in response or "seem" in response)
    )


QA_RULES: tuple[Rule, ...] = (
    Rule(
        "digits",
        "Write numbers as digits (12, not twelve).",
        ("numbers as digits", "as digits", "use numerals"),
        _spell_digits,
        _shows_words_for_digits,
    ),
    Rule(
        "full-name",
        "When the answer is a person, give their full name (first and last name).",
        ("full name",),
        _surname_only,
        _shows_surname,
    ),
    Rule(
        "bare-span",
        "Reply with the answer span only; no full sentence, no preamble.",
        ("answer span only", "no full sentence", "only the answer"),
        _wrap_in_sentence,
        _shows_sentence,
    ),
    Rule(
        "year-only",
        "When asked for a year, answer with the four-digit year only.",
        ("four-digit year", "year only"),
        _long_date,
        _shows_long_date,
    ),
    Rule(
        "units",
        "Keep the unit of measure with quantities (e.g. 340 m, 12 kg).",
        ("unit of measure", "keep the unit", "include the unit"),
        _drop_unit,
        _shows_missing_unit,
    ),
    Rule(
        "yes-no",
        "Answer yes/no questions with a bare yes or no.",
        ("bare yes or no", "with yes or no"),
        _hedged_yes_no,
        _shows_hedge,
    ),
)

HARMFUL_GUIDANCE: tuple[str, ...] = (
    "Always explain your reasoning in a complete sentence before giving the answer.",
    "Round every number to the nearest hundred to keep answers tidy.",
)
"""Plausible-sounding guidance that hurts: the simulated optimizer sometimes proposes it."""

_HARMFUL_KEYWORDS = ("explain your reasoning in a complete sentence", "round every number")


def harmful_in(skill: str) -> tuple[str, ...]:
    text = normalise(skill)
    return tuple(k for k in _HARMFUL_KEYWORDS if normalise(k) in text)


def rule_by_name(name: str) -> Rule | None:
    return next((r for r in QA_RULES if r.name == name), None)


def diagnose(response: str, expected: str) -> Rule | None:
    """Which rule's characteristic mistake does this failure show (if any)?"""
    return next((r for r in QA_RULES if r.symptom(response, expected)), None)


_NEEDS = re.compile(r"\[needs: ([^\]]+)\]")


def needs_in(reason: str) -> list[str]:
    """The guidance a judgement names with ``[needs: ...]`` (the nightly engine's checks do)."""
    return [m.group(1).strip() for m in _NEEDS.finditer(reason)]


def first_unaddressed_need(reason: str, skill: str) -> str:
    """The first named need the skill does not carry yet ("" when there is none)."""
    text = normalise(skill)
    return next((n for n in needs_in(reason) if normalise(n) not in text), "")
