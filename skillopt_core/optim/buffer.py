"""The rejected-edit buffer: negative memory so the same failed edit is not proposed again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from skillopt_core.records import Edit


@dataclass(frozen=True)
class RejectedEdit:
    edit: Edit
    delta: float  # candidate minus current on the gate metric
    step: int
    alone: bool  # the edit was the only one in its candidate, so the delta is its own


class RejectedBuffer:
    """Persisted in the run state. An edit is *blocked* (never selected again) once it was rejected
    on its own, or rejected twice; otherwise it is only shown to reflection as a warning — a good
    edit rejected alongside a harmful one deserves another chance."""

    def __init__(self, entries: Iterable[RejectedEdit] = ()) -> None:
        self.entries: list[RejectedEdit] = list(entries)

    def add(self, edits: Iterable[Edit], delta: float, step: int) -> None:
        batch = list(edits)
        for edit in batch:
            self.entries.append(RejectedEdit(edit, delta, step, alone=len(batch) == 1))

    def blocked_keys(self) -> set[tuple[str, str, str]]:
        counts: dict[tuple[str, str, str], int] = {}
        blocked: set[tuple[str, str, str]] = set()
        for entry in self.entries:
            key = entry.edit.key()
            counts[key] = counts.get(key, 0) + 1
            if entry.alone or counts[key] >= 2:
                blocked.add(key)
        return blocked

    def for_prompt(self, limit: int = 20) -> list[dict[str, Any]]:
        """Most recent rejections first, one per edit, for the reflection prompt."""
        seen: set[tuple[str, str, str]] = set()
        shown: list[dict[str, Any]] = []
        for entry in reversed(self.entries):
            if entry.edit.key() in seen:
                continue
            seen.add(entry.edit.key())
            shown.append(
                {**entry.edit.to_json(), "delta": round(entry.delta, 4), "step": entry.step}
            )
            if len(shown) == limit:
                break
        return shown

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"edit": e.edit.to_json(), "delta": e.delta, "step": e.step, "alone": e.alone}
            for e in self.entries
        ]

    @classmethod
    def from_json(cls, data: Iterable[Mapping[str, Any]]) -> RejectedBuffer:
        return cls(
            RejectedEdit(
                Edit.from_json(d["edit"]), float(d["delta"]), int(d["step"]), bool(d["alone"])
            )
            for d in data
        )

    def __len__(self) -> int:
        return len(self.entries)
