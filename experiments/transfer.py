"""Transfer: does a skill trained against one simulated target help another?

The two mock targets have different weaknesses (``skillopt_sleep.replay.mock.PROFILES``: ``a``
forgets content, ``b`` is careless with form). A skill trained on ``a`` learns only what ``a``
lacked; scored on ``b`` it is compared with a skill trained on ``b`` directly, on the same held-out
requests.
"""

from __future__ import annotations

from dataclasses import replace

from experiments.proof import ExperimentResult, ExperimentSpec, Progress, run


def run_transfer(
    spec: ExperimentSpec, source: str = "a", target: str = "b", progress: Progress | None = None
) -> tuple[ExperimentResult, ExperimentResult]:
    """(trained on ``source`` scored on ``target``, trained on ``target`` scored on ``target``)."""
    cross = run(replace(spec, profile=source, eval_profile=target), progress=progress)
    direct = run(replace(spec, profile=target, eval_profile=target), progress=progress)
    return cross, direct
