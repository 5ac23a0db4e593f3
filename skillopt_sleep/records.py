"""Typed, immutable records at the nightly engine's stage boundaries.

harvest -> ``Session``; mine -> ``Task``. All datetimes are timezone-aware UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Literal

Harness = Literal["claude", "codex", "copilot"]
Split = Literal["train", "val", "test"]


class SignalKind(str, Enum):
    CORRECTION = "correction"  # "no, that's wrong", "still failing"
    APPROVAL = "approval"  # "thanks, that works"
    RETRY = "retry"  # the same request asked again
    TOOL_ERROR = "tool_error"  # a tool call in reply to this request failed
    INTERRUPTED = "interrupted"  # the user stopped the turn


@dataclass(frozen=True)
class Signal:
    """Feedback evidence attached to a user turn (``turn_index`` is the request it judges)."""

    kind: SignalKind
    turn_index: int
    excerpt: str = ""


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    input_excerpt: str = ""
    result_excerpt: str = ""
    is_error: bool = False
    exit_code: int | None = None


@dataclass(frozen=True)
class Turn:
    role: Literal["user", "assistant"]
    text: str
    timestamp: datetime | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Session:
    harness: Harness
    session_id: str
    project: str  # absolute project root the session was scoped to
    cwd: str
    started_at: datetime
    ended_at: datetime
    turns: tuple[Turn, ...]
    signals: tuple[Signal, ...] = ()
    model: str = ""
    git_branch: str = ""
    source_files: tuple[str, ...] = ()
    # the session this one was forked from (``claude --fork-session``, a Codex fork), whose turns
    # it begins by repeating; "" when it was not forked
    forked_from: str = ""

    @property
    def user_turns(self) -> tuple[Turn, ...]:
        return tuple(t for t in self.turns if t.role == "user")


@dataclass(frozen=True)
class Check:
    """A rule a replayed answer must satisfy.

    kinds: contains, not_contains, regex, not_regex, section_present, max_chars, tool_called.
    """

    kind: str
    value: str
    description: str = ""


@dataclass(frozen=True)
class Evidence:
    """One past attempt at a task, with how it went."""

    session_id: str
    harness: Harness
    timestamp: datetime
    request: str
    outcome: Literal["failed", "succeeded", "unknown"]
    signals: tuple[Signal, ...] = ()


@dataclass(frozen=True)
class Task:
    id: str
    family: str
    intent: str  # the request to replay (never contains the follow-up feedback)
    context: str  # redacted excerpt of what the agent saw
    checks: tuple[Check, ...] = ()
    rubric: str = ""
    reference: str = ""
    evidence: tuple[Evidence, ...] = ()
    split: Split = "train"
