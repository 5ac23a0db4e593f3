"""What a simulated developer is: recurring task families with a hidden requirement, one-offs.

A :class:`Family` is a request the persona makes again and again, worded differently each time
(``requests`` are templates with ``{slot}`` fields filled from the persona's ``slots``). Its
``requirement`` is what a good answer must do; the persona never says it in the request, only
in the corrections it types after an answer missed it (``corrections``, which state it). The
simulated world (``skillopt_sleep.replay.mock``) judges replays against the requirement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from skillopt_sleep.records import Check


@dataclass(frozen=True)
class Family:
    id: str
    project: str  # project folder name under the persona's dev root
    requests: tuple[str, ...]  # paraphrase templates
    requirement: Check  # the hidden success requirement the world checks
    corrections: tuple[str, ...]  # follow-ups that state the requirement
    weight: float = 1.0  # how often the persona asks for it


@dataclass(frozen=True)
class Persona:
    name: str
    summary: str
    families: tuple[Family, ...]
    one_offs: tuple[str, ...]  # requests made once (templates too)
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    harnesses: Mapping[str, float] = field(default_factory=lambda: {"claude": 1.0})

    @property
    def projects(self) -> tuple[str, ...]:
        return tuple(sorted({f.project for f in self.families}))

    def family(self, family_id: str) -> Family:
        return next(f for f in self.families if f.id == family_id)


@dataclass(frozen=True)
class Turn:
    role: str  # "user" | "assistant"
    text: str


@dataclass(frozen=True)
class SimSession:
    """One harness session of a simulated day: a request and the follow-ups it drew."""

    id: str
    harness: str  # claude | codex | copilot
    project: str
    day: int
    start: float  # seconds since the persona's epoch
    turns: tuple[Turn, ...]
    family: str  # "" for a one-off


@dataclass(frozen=True)
class HeldOutRequest:
    """A later day's request, never written to a transcript: what the proof scores."""

    id: str
    family: str
    day: int
    text: str
    requirement: Check
