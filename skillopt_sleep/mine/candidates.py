"""Candidate requests: the user turns that open a goal, with how each attempt went.

A user turn is a candidate when it is not feedback on the attempt before it (a correction, an
approval, "continue", an amendment), not a retry of an earlier request, and has something to
compare once masked (not a pasted secret or "?!?!" alone: ``masking.content``); after the first
request, it also needs ``MIN_REQUEST_WORDS``. Feedback never opens a request, not even with no
request before it (the turn before was blank, or never recorded): a turn that opens as feedback
("no, that's wrong…", "thanks", "continue") then reacts to nothing there is to replay, and is
dropped. Everything that follows a candidate up to the next one is its *attempt*: assistant replies, tool
calls, and feedback. The feedback becomes ``Signal``s and an outcome; it is kept in ``feedback``
for synthesis and never appended to ``text``, which is what a replay sends. A long request keeps
its head and its tail (``REQUEST_CHARS`` in all), so a question after a pasted log survives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from skillopt_core.redaction import redact
from skillopt_sleep.mine.feedback import (
    classify_followup,
    excerpt,
    excerpt_ends,
    is_followup,
    opens_as_feedback,
    word_count,
)
from skillopt_sleep.mine.masking import content
from skillopt_sleep.records import Harness, Session, Signal, SignalKind, Turn

Outcome = Literal["failed", "succeeded", "unknown"]
MIN_REQUEST_WORDS = 2
# This engine invoked from a harness (Claude Code's `/skillopt-sleep run`, Codex's
# `$skillopt-sleep`): the user driving the tool, never a task to replay against a skill.
_OWN_COMMAND = re.compile(r"^\s*[/$]skillopt[-_]sleep\b", re.IGNORECASE)
REQUEST_CHARS = 2000
CONTEXT_CHARS = 600
REPLY_CHARS = 1500


@dataclass(frozen=True)
class Candidate:
    text: str  # the redacted request, exactly what a replay sends
    session_id: str
    harness: Harness
    project: str
    timestamp: datetime
    turn_index: int  # index into ``Session.turns``
    signals: tuple[Signal, ...] = ()
    outcome: Outcome = "unknown"
    feedback: tuple[str, ...] = ()  # redacted follow-up user texts (evidence, never replayed)
    context: str = ""  # redacted excerpt of what the agent saw
    reply: str = ""  # the attempt's last assistant reply (a reference when it was approved)
    tools: tuple[str, ...] = ()  # tool names the attempt used
    forked_from: str = ""  # the session's parent (``Session.forked_from``): see ``copies``


def normalize(text: str) -> str:
    """Whitespace- and case-folded text: the identity of a request."""
    return " ".join(text.lower().split())


def outcome_of(signals: Iterable[Signal]) -> Outcome:
    """Corrections, retries or an interruption mark a failed attempt; otherwise approval succeeds."""
    kinds = [s.kind for s in signals]
    if any(k in (SignalKind.CORRECTION, SignalKind.RETRY, SignalKind.INTERRUPTED) for k in kinds):
        return "failed"
    if SignalKind.APPROVAL in kinds:
        return "succeeded"
    return "unknown"


def _starts(session: Session) -> list[int]:
    """Indexes of the user turns that open a goal (see the module doc)."""
    starts: list[int] = []
    seen: set[str] = set()
    for index, turn in enumerate(session.turns):
        key = normalize(turn.text)
        if turn.role != "user" or not key or key in seen:
            continue
        if starts and (is_followup(turn.text) or word_count(key) < MIN_REQUEST_WORDS):
            continue
        if not starts and opens_as_feedback(turn.text):
            continue
        if _OWN_COMMAND.match(turn.text):  # `/skillopt-sleep status`: the user asking us
            continue
        if not content(redact(turn.text)):
            continue
        starts.append(index)
        seen.add(key)
    return starts


def _context(session: Session, turns: Iterable[Turn]) -> str:
    parts = [f"cwd: {session.cwd}"] if session.cwd else []
    if session.git_branch:
        parts.append(f"branch: {session.git_branch}")
    for turn in turns:
        for call in turn.tool_calls:
            status = "error" if call.is_error else "ok"
            parts.append(
                f"{call.name}({call.input_excerpt[:120]}) -> {status}: {call.result_excerpt[:160]}"
            )
    return excerpt("\n".join(parts), CONTEXT_CHARS) if parts else ""


def _own_signals(session: Session, start: int, end: int, known: tuple[Signal, ...]) -> list[Signal]:
    """Signals the harvester did not record: feedback turns and failed tool calls in the attempt."""
    have = {(s.kind, normalize(s.excerpt)) for s in known}
    kinds = {s.kind for s in known}
    found: list[Signal] = []
    for index in range(start + 1, end):
        turn = session.turns[index]
        if turn.role == "user":
            kind = classify_followup(turn.text)
            text = excerpt(turn.text, 300)
            if (
                kind is not None
                and (kind, normalize(text)) not in have
                and not _covered(kind, text, known)
            ):
                found.append(Signal(kind, start, text))
        elif SignalKind.TOOL_ERROR not in kinds:
            found.extend(
                Signal(SignalKind.TOOL_ERROR, start, excerpt(f"{c.name}: {c.result_excerpt}", 300))
                for c in turn.tool_calls
                if c.is_error or (c.exit_code not in (None, 0))
            )
    return found


def _covered(kind: SignalKind, text: str, known: tuple[Signal, ...]) -> bool:
    target = normalize(text)
    return any(
        s.kind == kind and (normalize(s.excerpt) in target or target in normalize(s.excerpt))
        for s in known
        if s.excerpt
    )


def _retries(session: Session, starts: list[int]) -> dict[int, list[Signal]]:
    """Later user turns that repeat a candidate's request verbatim count as retries of it."""
    found: dict[int, list[Signal]] = {}
    by_text = {normalize(session.turns[i].text): i for i in starts}
    for index, turn in enumerate(session.turns):
        if turn.role != "user" or index in starts:
            continue
        origin = by_text.get(normalize(turn.text))
        if origin is not None and origin < index:
            found.setdefault(origin, []).append(
                Signal(SignalKind.RETRY, origin, excerpt(turn.text, 300))
            )
    return found


def _redacted(signal: Signal) -> Signal:
    """``signal`` with its excerpt redacted by tonight's rules: a harvested signal may carry text
    an older version redacted (the harvest index keeps a file's earlier turns as first read), and
    the archive stores what it is given."""
    return replace(signal, excerpt=redact(signal.excerpt)) if signal.excerpt else signal


def candidates_from_session(session: Session) -> list[Candidate]:
    starts = _starts(session)
    retries = _retries(session, starts)
    found: list[Candidate] = []
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(session.turns)
        attempt = session.turns[start + 1 : end]
        known = tuple(_redacted(s) for s in session.signals if start <= s.turn_index < end)
        signals = (*known, *_own_signals(session, start, end, known), *retries.get(start, ()))
        request = session.turns[start]
        replies = [t.text for t in attempt if t.role == "assistant" and t.text.strip()]
        found.append(
            Candidate(
                text=excerpt_ends(request.text, REQUEST_CHARS),
                session_id=session.session_id,
                harness=session.harness,
                project=session.project,
                timestamp=request.timestamp or session.started_at,
                turn_index=start,
                signals=signals,
                outcome=outcome_of(signals),
                feedback=tuple(
                    excerpt(t.text, 400)
                    for t in attempt
                    if t.role == "user" and t.text.strip() and classify_followup(t.text) is not None
                ),
                context=_context(session, (request, *attempt)),
                reply=excerpt(replies[-1], REPLY_CHARS) if replies else "",
                tools=tuple(dict.fromkeys(c.name for t in attempt for c in t.tool_calls)),
                forked_from=session.forked_from,
            )
        )
    return found


def extract_candidates(sessions: Iterable[Session]) -> list[Candidate]:
    """Candidates from every session, in time order."""
    found = [c for s in sessions for c in candidates_from_session(s)]
    return sorted(found, key=_time_order)


def _time_order(candidate: Candidate) -> tuple[datetime, str, int]:
    return (candidate.timestamp, candidate.session_id, candidate.turn_index)


class CandidateStream:
    """The candidates of sessions delivered one at a time, so a night keeps each session only
    while its candidates are taken (a session holds every tool output; its candidates, a few KB).

    ``candidates()`` equals ``extract_candidates`` over the run's last delivery of each session
    in start order (what ``harvest.run`` collects): a session delivered again (it grew, or a
    later file continued it) replaces what it gave before."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[tuple[datetime, str, str], list[Candidate]]] = {}

    def add(self, session: Session) -> None:
        key = f"{session.harness}:{session.session_id}"
        order = (session.started_at, session.harness, session.session_id)
        self._found[key] = (order, candidates_from_session(session))

    @property
    def sessions(self) -> int:
        return len(self._found)

    def candidates(self) -> list[Candidate]:
        ordered = sorted(self._found.values(), key=lambda entry: entry[0])
        return sorted((c for _, found in ordered for c in found), key=_time_order)
