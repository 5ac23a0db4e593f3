"""Replay and judge: mined tasks rolled out on the target with a skill, scored offline.

Importing this package registers the simulated world's ``replay`` and ``judge`` purposes with the
``mock`` backend.
"""

from __future__ import annotations

from skillopt_sleep.replay import mock as _mock  # noqa: F401  (registers the mock handlers)
from skillopt_sleep.replay.checks import CheckResult, guidance_for, run_check, run_checks
from skillopt_sleep.replay.environment import NightEnvironment, judgeable, task_item
from skillopt_sleep.replay.prompt import replay_request

__all__ = [
    "CheckResult",
    "NightEnvironment",
    "guidance_for",
    "judgeable",
    "replay_request",
    "run_check",
    "run_checks",
    "task_item",
]
