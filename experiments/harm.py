"""Which proposed edits were harmful — judged by the observer, who knows the hidden requirements.

The optimizer never sees this; the experiment uses it to assert from the run's records that a
harmful edit was proposed *and* rejected by the gate (and, under ``--ablate gate``, that harmful
edits landed). An edit is harmful when it is too broad (claims every answer), says the opposite of
one of the persona's requirements, or deletes (or replaces with text that no longer says it) a
line that addressed one.
"""

from __future__ import annotations

from experiments.personas import Persona
from skillopt_core.backends.mock.meaning import read_line
from skillopt_core.backends.mock.world import harmful_in
from skillopt_sleep.replay.mock import addressed, contradicted


def harm_kind(op: str, anchor: str, content: str, persona: Persona) -> str:
    """ "" for a harmless edit, else why it is harmful."""
    requirements = [f.requirement for f in persona.families]
    if op == "delete":
        if harm_kind("add", "", anchor, persona):
            return ""  # removing a harmful line is a repair
        learned = any(addressed(r, anchor) for r in requirements)
        return "deletes a learned requirement" if learned else ""
    if op == "replace" and anchor:
        dropped = [r for r in requirements if addressed(r, anchor) and not addressed(r, content)]
        if dropped and not harm_kind("add", "", anchor, persona):
            return "deletes a learned requirement"
    text = content
    reading = read_line(text)
    if reading.broad:
        return "too broad"
    if any(contradicted(r, [reading]) for r in requirements):
        return "contradicts a requirement"
    if harmful_in(text):
        return "harmful guidance"
    return ""
