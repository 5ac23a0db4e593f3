"""Shared session assembly: events of one or more files -> one ``Session``.

Pairs tool calls with their results, groups events into alternating user / assistant turns,
attaches feedback signals, and applies the session-level filters (engine's own sessions, sessions
without a user request). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePath
from typing import Any

from skillopt_sleep.harvest import signals
from skillopt_sleep.harvest._events import (
    ASSISTANT,
    CALL,
    INTERRUPT,
    RESULT,
    USER,
    FileState,
    to_utc,
)
from skillopt_sleep.records import Harness, Session, ToolCall, Turn


@lru_cache(maxsize=1024)
def in_project(cwd: str, project: str) -> bool:
    """A session belongs to ``project`` when it ran in the project root or below it.

    Cached: a harvest asks this for every file and session, about a handful of directories.
    """
    if not cwd:
        return False
    try:
        here, root = PurePath(cwd), PurePath(project)
    except (TypeError, ValueError):
        return False
    return here == root or root in here.parents


@dataclass
class _Assistant:
    ts: float | None
    texts: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)


def _tool(call: dict[str, Any]) -> ToolCall:
    exit_code = call.get("exit_code")
    is_error = bool(call.get("is_error")) or (exit_code is not None and exit_code != 0)
    return ToolCall(
        call_id=call["id"],
        name=call.get("name") or "",
        input_excerpt=call.get("input") or "",
        result_excerpt=call.get("result") or "",
        is_error=is_error,
        exit_code=exit_code,
    )


def _ordered_events(states: Sequence[FileState]) -> list[list[Any]]:
    """One event stream; files of a continued session are concatenated in start-time order."""
    if len(states) == 1:
        return states[0].events

    def first_ts(state: FileState) -> float:
        return next((e[1] for e in state.events if e[1] is not None), float("inf"))

    merged: list[list[Any]] = []
    for state in sorted(states, key=first_ts):
        merged.extend(state.events)
    return merged


def build_turns(
    events: Sequence[list[Any]],
) -> tuple[tuple[Turn, ...], list[int], float | None, float | None]:
    """Turns, indices of interrupted user turns, and the first / last timestamps."""
    turns: list[Turn | _Assistant] = []  # assistant turns stay open until the end: late results
    interrupted: list[int] = []
    pending: _Assistant | None = None
    calls: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    first: float | None = None
    last: float | None = None
    last_user: int | None = None

    def flush() -> None:
        nonlocal pending
        if pending is not None and (pending.texts or pending.calls):
            turns.append(pending)
        pending = None

    for event in events:
        kind, ts, key = event[0], event[1], event[2]
        if key is not None:
            key = key if isinstance(key, str) else repr(key)  # sources should give text; be safe
            if key in seen:
                continue
            seen.add(key)
        if ts is not None:
            first = ts if first is None or ts < first else first
            last = ts if last is None or ts > last else last
        if kind == USER:
            if not event[3]:
                continue
            flush()
            last_user = len(turns)
            turns.append(Turn("user", event[3], to_utc(ts) if ts is not None else None))
        elif kind in (ASSISTANT, CALL):
            if pending is None:
                pending = _Assistant(ts)
            if kind == ASSISTANT:
                if event[3]:
                    pending.texts.append(event[3])
            else:
                call_id = event[3]
                if call_id in calls:
                    known = calls[call_id]
                    known["name"] = known.get("name") or event[4]
                    known["input"] = known.get("input") or event[5]
                else:
                    calls[call_id] = {"id": call_id, "name": event[4], "input": event[5]}
                    pending.calls.append(calls[call_id])
        elif kind == RESULT:
            call = calls.get(event[3])
            if call is not None:
                call["result"] = call.get("result") or event[4]
                call["is_error"] = bool(call.get("is_error")) or bool(event[5])
                if call.get("exit_code") is None and event[6] is not None:
                    call["exit_code"] = event[6]
        elif kind == INTERRUPT and last_user is not None:
            interrupted.append(last_user)
    flush()
    return tuple(_close(t) for t in turns), interrupted, first, last


def _close(turn: Turn | _Assistant) -> Turn:
    if isinstance(turn, Turn):
        return turn
    stamp = to_utc(turn.ts) if turn.ts is not None else None
    return Turn("assistant", "\n\n".join(turn.texts), stamp, tuple(_tool(c) for c in turn.calls))


@dataclass(frozen=True)
class Built:
    session: Session | None
    skipped: str = ""  # why no session came out


def assemble(
    harness: Harness,
    session_id: str,
    project: str,
    states: Sequence[FileState],
    source_files: Sequence[str],
    fallback_ts: float,
) -> Built:
    """Build one session from the states of the files that hold it."""
    if any(s.meta.get("engine") for s in states):
        return Built(None, "engine session")
    turns, interrupted, first, last = build_turns(_ordered_events(states))
    if not any(t.role == "user" for t in turns):
        return Built(None, "no user request")

    def meta(key: str) -> str:
        return next((str(s.meta[key]) for s in states if s.meta.get(key)), "")

    session = Session(
        harness=harness,
        session_id=session_id,
        project=project,
        cwd=meta("cwd"),
        started_at=to_utc(first if first is not None else fallback_ts),
        ended_at=to_utc(last if last is not None else fallback_ts),
        turns=turns,
        signals=signals.detect(turns, interrupted),
        model=meta("model"),
        git_branch=meta("git_branch"),
        source_files=tuple(sorted(source_files)),
    )
    return Built(session)
