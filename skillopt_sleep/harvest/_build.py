"""Shared session assembly: events of one or more files -> one ``Session``.

Pairs tool calls with their results, groups events into alternating user / assistant turns,
attaches feedback signals, and applies the session-level filters (engine's own sessions, sessions
without a user request). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Any, Literal, NamedTuple

import orjson

from skillopt_core.redaction import redact
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
from skillopt_sleep.records import Harness, Session, Signal, SignalKind, ToolCall, Turn


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


@lru_cache(maxsize=4096)
def clean_path(path: str) -> str:
    """A path as it may be shown or stored: redacted (a folder can be named after a secret).

    Cached: a run asks for the same project root and a handful of folders again and again.
    """
    return redact(path)


def fingerprint(step: Step) -> str:
    """A stable digest of one turn, to tell later whether it is the turn delivered before."""
    return hashlib.blake2b(orjson.dumps(step), digest_size=12).hexdigest()


# A session as plain tuples, the form a worker process sends back (pickling records is slow):
# Call = (call_id, name, input, result, is_error, exit_code); Step = (role, text, ts, calls).
Call = tuple[str, str, str, str, bool, "int | None"]
Role = Literal["user", "assistant"]
Step = tuple[Role, str, "float | None", tuple[Call, ...]]


class Draft(NamedTuple):
    harness: Harness
    session_id: str
    project: str
    cwd: str
    started: float
    ended: float
    steps: tuple[Step, ...]
    signals: tuple[tuple[str, int, str], ...]  # (kind, turn index, excerpt)
    model: str
    git_branch: str
    source_files: tuple[str, ...]
    forked_from: str = ""

    def session(self) -> Session:
        turns = tuple(
            Turn(
                role,
                text,
                None if ts is None else to_utc(ts),
                tuple(ToolCall(*c) for c in calls) if calls else (),
            )
            for role, text, ts, calls in self.steps
        )
        return Session(
            harness=self.harness,
            session_id=self.session_id,
            project=self.project,
            cwd=self.cwd,
            started_at=to_utc(self.started),
            ended_at=to_utc(self.ended),
            turns=turns,
            signals=tuple(Signal(SignalKind(k), i, e) for k, i, e in self.signals),
            model=self.model,
            git_branch=self.git_branch,
            source_files=self.source_files,
            forked_from=self.forked_from,
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


def build_steps(
    events: Sequence[list[Any]],
) -> tuple[tuple[Step, ...], list[int], float | None, float | None]:
    """Turns (as steps), indices of interrupted user turns, and the first / last timestamps."""
    steps: list[Step | list[Any]] = []  # assistant turns stay open until the end: late results
    interrupted: list[int] = []
    pending: list[Any] | None = None  # [ts, texts, calls] of the open assistant turn
    calls: dict[str, list[Any]] = {}  # call_id -> [call_id, name, input, result, error, exit]
    seen: set[str] = set()
    first: float | None = None
    last: float | None = None
    last_user: int | None = None
    for event in events:
        kind, ts, key = event[0], event[1], event[2]
        if key is not None:
            key = key if isinstance(key, str) else repr(key)  # sources should give text; be safe
            if key in seen:
                continue
            seen.add(key)
        if ts is not None:
            if first is None or ts < first:
                first = ts
            if last is None or ts > last:
                last = ts
        if kind == USER:
            if not event[3]:
                continue
            if pending is not None and (pending[1] or pending[2]):
                steps.append(pending)
            pending = None
            last_user = len(steps)
            steps.append(("user", event[3], ts, ()))
        elif kind in (ASSISTANT, CALL):
            if pending is None:
                pending = [ts, [], []]
            if kind == ASSISTANT:
                if event[3]:
                    pending[1].append(event[3])
            else:
                known = calls.get(event[3])
                if known is None:
                    calls[event[3]] = known = [event[3], event[4], event[5], None, False, None]
                    pending[2].append(known)
                else:
                    known[1] = known[1] or event[4]
                    known[2] = known[2] or event[5]
        elif kind == RESULT:
            known = calls.get(event[3])
            if known is not None:
                known[3] = known[3] or event[4]
                known[4] = known[4] or bool(event[5])
                if known[5] is None and event[6] is not None:
                    known[5] = event[6]
        elif kind == INTERRUPT and last_user is not None:
            interrupted.append(last_user)
    if pending is not None and (pending[1] or pending[2]):
        steps.append(pending)
    return tuple(_close(s) for s in steps), interrupted, first, last


def _close(step: Step | list[Any]) -> Step:
    if isinstance(step, tuple):
        return step
    ts, texts, calls = step
    return ("assistant", "\n\n".join(texts), ts, tuple(_call(c) for c in calls))


def _call(call: list[Any]) -> Call:
    call_id, name, input_text, result, is_error, exit_code = call
    failed = bool(is_error) or (exit_code is not None and exit_code != 0)
    return (call_id, name or "", input_text or "", result or "", failed, exit_code)


@dataclass(frozen=True)
class Built:
    session: Session | None
    skipped: str = ""  # why no session came out


def draft(
    harness: Harness,
    session_id: str,
    project: str,
    states: Sequence[FileState],
    source_files: Sequence[str],
    fallback_ts: float,
) -> Draft | str:
    """One session from the states of the files that hold it, or why there is none."""
    if any(s.meta.get("engine") for s in states):
        return "engine session"
    steps, interrupted, first, last = build_steps(_ordered_events(states))
    if not any(s[0] == "user" for s in steps):
        return "no user request"

    def meta(key: str) -> str:
        return next((str(s.meta[key]) for s in states if s.meta.get(key)), "")

    return Draft(
        harness,
        session_id,
        project,
        meta("cwd"),
        first if first is not None else fallback_ts,
        last if last is not None else fallback_ts,
        steps,
        signals.detect(steps, interrupted),
        meta("model"),
        meta("git_branch"),
        tuple(sorted(source_files)),
        meta("forked_from"),
    )


def assemble(
    harness: Harness,
    session_id: str,
    project: str,
    states: Sequence[FileState],
    source_files: Sequence[str],
    fallback_ts: float,
) -> Built:
    """Build one session from the states of the files that hold it."""
    made = draft(harness, session_id, project, states, source_files, fallback_ts)
    return Built(None, made) if isinstance(made, str) else Built(made.session())
