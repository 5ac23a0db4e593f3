"""Score held-out requests (later days, never trained on) with the same replay + judge a night uses.

A held-out request becomes a :class:`~skillopt_sleep.records.Task` whose check is the family's
hidden requirement (what the simulated world really wants, not what the miner guessed), replayed on
the target with the skill the user's agent would load for that project. Each request is replayed
``samples`` times; its score is the mean, so before/after pairs are per request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from experiments.personas import HeldOutRequest, Persona
from skillopt_core.backends._protocol import Backend
from skillopt_sleep.records import Task
from skillopt_sleep.replay import NightEnvironment


@dataclass(frozen=True)
class HeldOutScore:
    per_request: Mapping[str, float]  # request id -> mean hard score over the samples
    mean: float


def held_out_tasks(requests: Sequence[HeldOutRequest]) -> tuple[Task, ...]:
    return tuple(
        Task(
            id=r.id,
            family=r.family,
            intent=r.text,
            context="",
            checks=(r.requirement,),
            split="test",
        )
        for r in requests
    )


def score_held_out(
    persona: Persona,
    requests: Sequence[HeldOutRequest],
    skills: Mapping[str, str],
    target: Backend,
    samples: int = 2,
) -> HeldOutScore:
    """``skills`` maps a project name to the skill text its agent loads ("" when none yet)."""
    env = NightEnvironment({"test": held_out_tasks(requests)})
    project_of = {f.id: f.project for f in persona.families}
    scores: dict[str, float] = {}
    for item in env.items("test"):
        task: Task = item.get("task")
        skill = skills.get(project_of[task.family], "")
        total = 0.0
        for sample in range(samples):
            rollout = env.rollout(skill, item, target, sample)
            total += env.score(item, rollout).hard
        scores[task.id] = total / samples
    mean = sum(scores.values()) / max(1, len(scores))
    return HeldOutScore(scores, round(mean, 4))
