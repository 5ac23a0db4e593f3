"""A persona's days: which requests it makes, in what words, and what it types afterwards.

Deterministic for (persona, seed). Each day the persona opens a few sessions; a session is one
request — a recurring family's, paraphrased in a varied style, or a one-off — followed by what a
developer types next: a correction that states the requirement when the answer missed it
(sometimes a second "again please" round), or thanks. Training days become transcripts; the
requests of the held-out days never do (:func:`held_out`).
"""

from __future__ import annotations

import hashlib
import itertools
import random
import string
from collections.abc import Sequence
from dataclasses import dataclass

from experiments.personas.model import Family, HeldOutRequest, Persona, SimSession, Turn

DAY_SECONDS = 86_400


@dataclass(frozen=True)
class Habits:
    """How the simulated developer works (rates are per session)."""

    sessions_per_day: tuple[int, int] = (5, 7)
    one_off_rate: float = 0.2
    miss_rate: float = 0.6  # the agent missed the hidden requirement
    again_rate: float = 0.2  # after a correction, the answer missed again
    thanks_rate: float = 0.5


_OPENERS = ("", "", "hey, ", "quick one: ", "can you ", "pls ", "could you please ", "ok next: ")
_CLOSERS = ("", "", "", " thanks", "?", " - need it today", " when you get a chance")
_THANKS = ("thanks, that works", "thanks!", "perfect, thank you", "great, thanks", "looks good")


def _fill(template: str, persona: Persona, rng: random.Random) -> str:
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
    values = {f: rng.choice(persona.slots[f]) for f in fields}
    return template.format(**values)


def _styled(text: str, rng: random.Random) -> str:
    opener = rng.choice(_OPENERS)
    if opener in ("can you ", "could you please ") and text[:1].isupper():
        text = text[:1].lower() + text[1:]
    styled = f"{opener}{text}{rng.choice(_CLOSERS)}"
    return styled.lower() if rng.random() < 0.3 else styled


def _session_id(*parts: object) -> str:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


def _pick_family(persona: Persona, rng: random.Random) -> Family:
    weights = [f.weight for f in persona.families]
    return rng.choices(persona.families, weights=weights)[0]


def _harness(persona: Persona, rng: random.Random) -> str:
    names = sorted(persona.harnesses)
    return rng.choices(names, weights=[persona.harnesses[n] for n in names])[0]


def _reply(request: str) -> str:
    return f"Here is what I did for: {request[:120]}"


def _family_turns(
    family: Family, request: str, persona: Persona, habits: Habits, rng: random.Random
) -> list[Turn]:
    turns = [Turn("user", request), Turn("assistant", _reply(request))]
    if rng.random() < habits.miss_rate:
        correction = _fill(rng.choice(family.corrections), persona, rng)
        turns += [Turn("user", correction), Turn("assistant", _reply(correction))]
        if rng.random() < habits.again_rate:
            again = f"that's not it, again please - {_fill(rng.choice(family.corrections), persona, rng)}"
            turns += [Turn("user", again), Turn("assistant", _reply(again))]
    if rng.random() < habits.thanks_rate:
        thanks = rng.choice(_THANKS)
        turns += [Turn("user", thanks), Turn("assistant", "You're welcome.")]
    return turns


def simulate(
    persona: Persona, days: int, seed: int = 0, habits: Habits | None = None
) -> tuple[SimSession, ...]:
    """The persona's sessions on days ``0 .. days-1``, in time order."""
    habits = habits or Habits()
    rng = random.Random(f"{persona.name}:{seed}:days")
    sessions: list[SimSession] = []
    for day in range(days):
        count = rng.randint(*habits.sessions_per_day)
        clock = day * DAY_SECONDS + 9 * 3600
        for index in range(count):
            clock += rng.randint(600, 4800)
            if rng.random() < habits.one_off_rate:
                family_id, project = "", rng.choice(persona.projects)
                request = _styled(_fill(rng.choice(persona.one_offs), persona, rng), rng)
                turns = [Turn("user", request), Turn("assistant", _reply(request))]
                if rng.random() < habits.thanks_rate:
                    turns += [
                        Turn("user", rng.choice(_THANKS)),
                        Turn("assistant", "Glad it helped."),
                    ]
            else:
                family = _pick_family(persona, rng)
                family_id, project = family.id, family.project
                request = _styled(_fill(rng.choice(family.requests), persona, rng), rng)
                turns = _family_turns(family, request, persona, habits, rng)
            sessions.append(
                SimSession(
                    id=_session_id(persona.name, seed, day, index),
                    harness=_harness(persona, rng),
                    project=project,
                    day=day,
                    start=float(clock),
                    turns=tuple(turns),
                    family=family_id,
                )
            )
    return tuple(sessions)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def wordings(family: Family, persona: Persona) -> tuple[str, ...]:
    """Every request of ``family`` before styling: each template with each choice of its slots."""
    out: list[str] = []
    for template in family.requests:
        fields = list(dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(template) if f))
        for values in itertools.product(*(persona.slots[f] for f in fields)):
            out.append(template.format(**dict(zip(fields, values, strict=True))))
    return tuple(dict.fromkeys(out))


def seen_wordings(family: Family, persona: Persona, seen: Sequence[SimSession]) -> set[str]:
    """The wordings of ``family`` some user turn in ``seen`` already asked, in any style (styling
    only adds an opener and a closer and may lower the case)."""
    asked = [_normal(t.text) for s in seen for t in s.turns if t.role == "user"]
    return {w for w in wordings(family, persona) if any(_normal(w) in a for a in asked)}


def held_out(
    persona: Persona,
    first_day: int,
    days: int,
    seed: int = 0,
    seen: Sequence[SimSession] = (),
    per_day: int = 6,
) -> tuple[HeldOutRequest, ...]:
    """Family requests of days ``first_day .. first_day+days-1``, worded as no request in ``seen``
    was: a held-out request is never a restyling (another opener, closer or case) of a training
    request. Only a family whose every wording was trained on (a small template x slot space)
    repeats one, in a styling never asked."""
    rng = random.Random(f"{persona.name}:{seed}:held-out")
    asked = {_normal(t.text) for s in seen for t in s.turns if t.role == "user"}
    fresh: dict[str, list[str]] = {}
    for f in persona.families:
        used = seen_wordings(f, persona, seen)
        fresh[f.id] = [w for w in wordings(f, persona) if w not in used]
    out: list[HeldOutRequest] = []
    for day in range(first_day, first_day + days):
        for index in range(per_day):
            family = persona.families[(day * per_day + index) % len(persona.families)]
            for _ in range(20):
                if fresh[family.id]:
                    text = _styled(rng.choice(fresh[family.id]), rng)
                else:
                    text = _styled(_fill(rng.choice(family.requests), persona, rng), rng)
                key = _normal(text)
                if key not in asked:
                    break
            asked.add(key)
            out.append(
                HeldOutRequest(
                    id=f"h-{persona.name}-{day}-{index}",
                    family=family.id,
                    day=day,
                    text=text,
                    requirement=family.requirement,
                )
            )
    return tuple(out)
