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
    # Hot: once per event of every session, so kinds are tested most common first. An assistant
    # turn stays open until the end (a result can come late) as [ts, texts, calls]; each call
    # as [call_id, name, input, result, error, exit], closed by ``_close``.
    steps: list[Any] = []
    interrupted: list[int] = []
    pending: list[Any] | None = None  # the latest assistant turn
    calls: dict[str, list[Any]] = {}
    call_of = calls.get
    seen: set[str] = set()
    first: float | None = None
    last: float | None = None
    last_user: int | None = None
    for event in events:
        key = event[2]
        if key is not None:
            if not isinstance(key, str):
                key = repr(key)  # sources should give text; be safe
            if key in seen:
                continue
            seen.add(key)
        kind, ts = event[0], event[1]
        if ts is not None:
            if first is None or ts < first:
                first = ts
            if last is None or ts > last:
                last = ts
        if kind == CALL:
            known = call_of(event[3])
            if known is None:
                calls[event[3]] = known = [event[3], event[4], event[5], None, False, None]
                if pending is None:
                    pending = [ts, [], [known]]
                else:
                    pending[2].append(known)
            else:
                if pending is None:
                    pending = [ts, [], []]
                if not known[1]:
                    known[1] = event[4]
                if not known[2]:
                    known[2] = event[5]
        elif kind == RESULT:
            known = call_of(event[3])
            if known is not None:
                if not known[3]:
                    known[3] = event[4]
                if not known[4]:
                    known[4] = bool(event[5])
                if known[5] is None:
                    known[5] = event[6]
        elif kind == USER:
            if event[3]:
                if pending is not None and (pending[1] or pending[2]):
                    steps.append(pending)
                pending = None
                last_user = len(steps)
                steps.append(("user", event[3], ts, ()))
        elif kind == ASSISTANT:
            if pending is None:
                pending = [ts, [event[3]] if event[3] else [], []]
            elif event[3]:
                pending[1].append(event[3])
        elif kind == INTERRUPT and last_user is not None:
            interrupted.append(last_user)
    if pending is not None and (pending[1] or pending[2]):
        steps.append(pending)
    return tuple([_close(s) if isinstance(s, list) else s for s in steps]), interrupted, first, last


def _close(step: list[Any]) -> Step:
    """An assistant turn as a step, once no later result can change it. A call failed when it
    says so or exited other than 0 (hot: one tuple per call, made inline)."""
    ts, texts, calls = step
    done = [
        (call_id, name or "", args or "", result or "", bool(error) or code not in (None, 0), code)
        for call_id, name, args, result, error, code in calls
    ]
    return ("assistant", "\n\n".join(texts), ts, tuple(done))


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
    for state in states:
        if state.meta.get("engine"):
            return "engine session"
    steps, interrupted, first, last = build_steps(_ordered_events(states))
    if not any(s[0] == "user" for s in steps):
        return "no user request"
    return Draft(
        harness,
        session_id,
        project,
        _meta(states, "cwd"),
        first if first is not None else fallback_ts,
        last if last is not None else fallback_ts,
        steps,
        signals.detect(steps, interrupted),
        _meta(states, "model"),
        _meta(states, "git_branch"),
        tuple(sorted(source_files)),
        _meta(states, "forked_from"),
    )


def _meta(states: Sequence[FileState], key: str) -> str:
    """The first file's value of a session fact, as text ("" when none has it)."""
    for state in states:
        value = state.meta.get(key)
        if value:
            return str(value)
    return ""


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
