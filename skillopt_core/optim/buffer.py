"""The rejected-edit buffer: negative memory so the same failed edit is not proposed again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
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

    def compacted(self, limit: int) -> RejectedBuffer:
        """The buffer with one entry per edit and at most ``limit`` of the optimizer's own, which
        blocks exactly what this one blocks. Each rejection appended an entry, so a buffer
        carried across nights grew for as long as a project was used. An edit keeps its place
        of last rejection, ``alone`` set when it is blocked (a second rejection of an edit only
        warned about still blocks it); past ``limit`` the edits rejected longest ago go (one may
        be proposed again, and the gate weighs it again). The user's refusals (step -1, their
        entry kept) always stay."""
        blocked = self.blocked_keys()
        latest: dict[tuple[str, str, str], RejectedEdit] = {}
        users: dict[tuple[str, str, str], RejectedEdit] = {}
        for entry in self.entries:
            key = entry.edit.key()
            if entry.step == -1:
                users[key] = entry
            latest.pop(key, None)  # re-inserted: ordered by last rejection
            latest[key] = entry
        kept = [replace(users.get(k, e), alone=k in blocked) for k, e in latest.items()]
        engine = [i for i, entry in enumerate(kept) if entry.step != -1]
        dropped = set(engine[: max(len(engine) - limit, 0)])
        return RejectedBuffer(e for i, e in enumerate(kept) if i not in dropped)

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
