"""Per-harness harvest counts: what came out, and what was skipped and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from skillopt_sleep.records import SignalKind

if TYPE_CHECKING:
    from skillopt_sleep.harvest._build import Draft


_CORRECTION = SignalKind.CORRECTION.value


def _empty() -> Mapping[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True)
class HarvestStats:
    harness: str
    files_seen: int = 0
    files_read: int = 0
    files_unchanged: int = 0
    bytes_read: int = 0
    sessions: int = 0
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    corrections: int = 0
    skipped_lines: Mapping[str, int] = field(default_factory=_empty)
    skipped_files: Mapping[str, int] = field(default_factory=_empty)
    skipped_sessions: Mapping[str, int] = field(default_factory=_empty)

    @property
    def skipped_line_count(self) -> int:
        return sum(self.skipped_lines.values())


@dataclass
class Tally:
    """Mutable counterpart of :class:`HarvestStats`, filled during one run."""

    harness: str
    files_seen: int = 0
    files_read: int = 0
    files_unchanged: int = 0
    bytes_read: int = 0
    sessions: int = 0
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    corrections: int = 0
    skipped_lines: Counter[str] = field(default_factory=Counter)
    skipped_files: Counter[str] = field(default_factory=Counter)
    skipped_sessions: Counter[str] = field(default_factory=Counter)

    def count(self, made: Draft) -> tuple[int, int, int, int]:
        """Count one session, read off its draft (no session needs building); returns what was
        added, for :meth:`discount`."""
        calls = errors = 0
        for step in made.steps:
            if step[3]:  # a user turn has none
                calls += len(step[3])
                for call in step[3]:
                    if call[4]:  # ToolCall.is_error
                        errors += 1
        corrections = 0
        for signal in made.signals:
            if signal[0] == _CORRECTION:
                corrections += 1
        added = (len(made.steps), calls, errors, corrections)
        self._add(1, added)
        return added

    def discount(self, added: tuple[int, ...]) -> None:
        """Take back a session counted before (it was superseded by a longer one)."""
        self._add(-1, tuple(-n for n in added))

    def _add(self, sessions: int, added: tuple[int, ...]) -> None:
        turns, calls, errors, corrections = added
        self.sessions += sessions
        self.turns += turns
        self.tool_calls += calls
        self.tool_errors += errors
        self.corrections += corrections

    def merge(self, other: Tally) -> None:
        """Fold in another tally (two sources of the same harness share one row)."""
        for name in (
            "files_seen",
            "files_read",
            "files_unchanged",
            "bytes_read",
            "sessions",
            "turns",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("tool_calls", "tool_errors", "corrections"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.skipped_lines.update(other.skipped_lines)
        self.skipped_files.update(other.skipped_files)
        self.skipped_sessions.update(other.skipped_sessions)

    def freeze(self) -> HarvestStats:
        return HarvestStats(
            harness=self.harness,
            files_seen=self.files_seen,
            files_read=self.files_read,
            files_unchanged=self.files_unchanged,
            bytes_read=self.bytes_read,
            sessions=self.sessions,
            turns=self.turns,
            tool_calls=self.tool_calls,
            tool_errors=self.tool_errors,
            corrections=self.corrections,
            skipped_lines=MappingProxyType(dict(sorted(self.skipped_lines.items()))),
            skipped_files=MappingProxyType(dict(sorted(self.skipped_files.items()))),
            skipped_sessions=MappingProxyType(dict(sorted(self.skipped_sessions.items()))),
        )
