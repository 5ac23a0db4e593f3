"""Simulated developers for the experiments: each has recurring task families with a hidden
requirement, one-off requests and the follow-ups a user types.

    from experiments.personas import PERSONAS, simulate, write_sessions
"""

from __future__ import annotations

from experiments.personas import data_analyst, devops, programmer, researcher, writer
from experiments.personas.model import Family, HeldOutRequest, Persona, SimSession, Turn
from experiments.personas.simulate import Habits, held_out, simulate
from experiments.personas.transcripts import write_sessions

PERSONAS: dict[str, Persona] = {
    p.name: p
    for p in (
        researcher.PERSONA,
        programmer.PERSONA,
        devops.PERSONA,
        data_analyst.PERSONA,
        writer.PERSONA,
    )
}

__all__ = [
    "PERSONAS",
    "Family",
    "Habits",
    "HeldOutRequest",
    "Persona",
    "SimSession",
    "Turn",
    "held_out",
    "simulate",
    "write_sessions",
]
