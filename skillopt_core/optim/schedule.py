"""The textual learning rate: how many edits one step may apply.

A large budget early lets the skill take shape; decaying it to a floor later keeps a trained skill
from being rewritten by one noisy batch, while never freezing it entirely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from skillopt_core.errors import UsageError

ScheduleKind = Literal["constant", "linear", "cosine"]
KINDS: tuple[ScheduleKind, ...] = ("constant", "linear", "cosine")


@dataclass(frozen=True)
class LRSchedule:
    """Edit budget per step: ``max_edits`` at step 0 decaying to ``min_edits`` at the last step."""

    kind: ScheduleKind = "cosine"
    max_edits: int = 4
    min_edits: int = 2

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UsageError(f"unknown schedule {self.kind!r}; use one of {', '.join(KINDS)}")
        if not 0 <= self.min_edits <= self.max_edits:
            raise UsageError(
                f"need 0 <= min_edits <= max_edits, got min={self.min_edits} max={self.max_edits}"
            )

    def budget(self, step: int, total_steps: int) -> int:
        """Edits allowed at ``step`` (0-based) of ``total_steps``; steps outside are clamped."""
        if self.kind == "constant" or total_steps <= 1:
            return self.max_edits
        progress = min(max(step / (total_steps - 1), 0.0), 1.0)
        if self.kind == "linear":
            fraction = 1.0 - progress
        else:
            fraction = 0.5 * (1.0 + math.cos(math.pi * progress))
        # Round half up (not banker's rounding) so the schedule reads the way it is described.
        return self.min_edits + math.floor((self.max_edits - self.min_edits) * fraction + 0.5)
