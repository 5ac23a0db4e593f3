"""Generate the bundled toy QA split (skillopt_core/data/toy) from fictional facts.

Each item carries a ``requirement``: the answer-format rule a target must know to get it exactly
right (digits, full names, bare spans, years, units, yes/no). Facts are invented so no model can
answer from memory. Run: ``python experiments/make_toy_split.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SYLLABLES = [
    "ka",
    "lor",
    "ven",
    "mir",
    "tas",
    "el",
    "dun",
    "bra",
    "sil",
    "or",
    "quen",
    "thal",
    "ris",
    "mo",
    "zan",
]
FIRST = [
    "Ada",
    "Tomas",
    "Ines",
    "Oren",
    "Lia",
    "Bram",
    "Nadia",
    "Pim",
    "Sela",
    "Vikram",
    "Uma",
    "Joss",
]
THINGS = ["lighthouses", "libraries", "bridges", "orchards", "museums", "harbours", "observatories"]
STRUCTURES = ["bridge", "tower", "canal", "dam", "viaduct", "tunnel"]
UNITS = ["m", "km", "kg", "t"]


def _name(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def _item(rng: random.Random, requirement: str) -> dict[str, object]:
    place, other = _name(rng, 3), _name(rng, 3)
    if requirement == "digits":
        n, things = rng.randint(2, 99), rng.choice(THINGS)
        return {
            "question": f"How many {things} does {place} have?",
            "context": f"{place} is a quiet district. It has {n} {things} and a small market.",
            "answers": [str(n)],
        }
    if requirement == "full-name":
        person = f"{rng.choice(FIRST)} {_name(rng)}"
        return {
            "question": f"Who founded the {place} Guild?",
            "context": f"The {place} Guild was founded by {person}, a glassmaker from {other}.",
            "answers": [person],
        }
    if requirement == "year-only":
        year, structure = rng.randint(1800, 2020), rng.choice(STRUCTURES)
        return {
            "question": f"In what year was the {place} {structure} completed?",
            "context": f"Work on the {place} {structure} began early, and it was completed in {year}.",
            "answers": [str(year)],
        }
    if requirement == "units":
        n, unit, structure = rng.randint(12, 950), rng.choice(UNITS), rng.choice(STRUCTURES)
        measure = "weighs" if unit in ("kg", "t") else "is"
        suffix = "" if unit in ("kg", "t") else " long"
        return {
            "question": f"How {'heavy' if unit in ('kg', 't') else 'long'} is the {place} {structure}?",
            "context": f"The {place} {structure} {measure} {n} {unit}{suffix}.",
            "answers": [f"{n} {unit}"],
        }
    if requirement == "yes-no":
        a, b = rng.randint(1700, 1990), rng.randint(1700, 1990)
        answer = "yes" if a < b else "no"
        return {
            "question": f"Is the {place} archive older than the {other} archive?",
            "context": f"The {place} archive opened in {a}; the {other} archive opened in {b}.",
            "answers": [answer],
        }
    city = _name(rng, 2)
    if requirement == "bare-span":
        return {
            "question": f"What is the main port of {place}?",
            "context": f"{place} trades mostly through {city}, its main port.",
            "answers": [city],
        }
    return {
        "question": f"Which river flows through {place}?",
        "context": f"The {city} river flows through {place}.",
        "answers": [city],
        "note": "plain: no special format needed",
    }


REQUIREMENTS = ["digits", "full-name", "bare-span", "year-only", "units", "yes-no", "plain"]


def make_split(rng: random.Random, prefix: str, count: int) -> list[dict[str, object]]:
    items = []
    for index in range(count):
        requirement = REQUIREMENTS[index % len(REQUIREMENTS)]
        item = {"id": f"{prefix}-{index:03d}", **_item(rng, requirement)}
        if requirement != "plain":
            item["requirement"] = requirement
        items.append(item)
    rng.shuffle(items)
    return items


def main() -> None:
    rng = random.Random(20261121)
    root = Path(__file__).resolve().parent.parent / "skillopt_core" / "data" / "toy"
    for split, count in (("train", 63), ("val", 35), ("test", 70)):
        target = root / split / "items.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            json.dumps(make_split(rng, split, count), indent=1) + "\n", encoding="utf-8"
        )
    (root / "seed_skill.md").write_text(
        "# Passage QA\n\nRead the passage carefully and answer the question from it.\n",
        encoding="utf-8",
    )
    print(f"wrote toy split to {root}")


if __name__ == "__main__":
    main()
