"""Issue 13's leaner per-session assembly gives exactly what the code before it gave.

Frozen copies of every replaced function (``before_*``, below) run against the module on
hypothesis-generated events: duplicate and non-text keys, results before, without or after
their call, repeated call ids, interrupts, None timestamps, prompts carrying the internal NUL
join marker (well formed or not), meta holding non-text values, planted secrets, and texts a few
characters either side of their limits with token runs at the cut. Compared: the sealed events
and meta (or the error raised), the steps, the drafts, the stats; and whole harvests of the
genuine transcripts, with the frozen copies patched in and without.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redaction._secrets import TOKENS

from harvest._fixtures import PLANTED_KEY, READING, WEBAPP
from skillopt_core.redaction import default_redactor, redact_many
from skillopt_sleep.harvest import _build, _events, _harvest, _reading, harvest, signals
from skillopt_sleep.harvest._build import Draft, _ordered_events, build_steps, draft
from skillopt_sleep.harvest._events import (
    ASSISTANT,
    CALL,
    CUT_MARK,
    INPUT_CHARS,
    INTERRUPT,
    META_TEXTS,
    PROMPT_CHARS,
    PROMPT_TAIL_CHARS,
    REDACT_MARGIN,
    RESULT,
    RESULT_CHARS,
    SEAL_BATCH,
    TEXT_CHARS,
    USER,
    FileState,
    _head,
    _name_of,
    _tail,
    _tool_names,
    seal,
    user,
)
from skillopt_sleep.harvest._lines import FileId
from skillopt_sleep.harvest._reading import ReadJob, _session_key, _unflat
from skillopt_sleep.harvest._stats import Tally
from skillopt_sleep.harvest.claude import ClaudeSource
from skillopt_sleep.harvest.codex import CodexSource
from skillopt_sleep.harvest.copilot import CopilotCliSource
from skillopt_sleep.harvest.vscode import VsCodeChatSource, workspace_folder
from skillopt_sleep.records import SignalKind

# ------------------------------------------------------------------ the code before (frozen)

_BEFORE_TOKEN_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-"
)
_BEFORE_MARK_ROOM = len(CUT_MARK.format("9" * 15))
_BEFORE_PROMPT_HEAD_CHARS = PROMPT_CHARS - PROMPT_TAIL_CHARS - _BEFORE_MARK_ROOM
_BEFORE_WHOLE = -1


def before_head(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    kept = text[:n]
    if _BEFORE_TOKEN_CHARS.issuperset(text[n - 1 : n + 1]):
        start = n
        while start > 0 and kept[start - 1] in _BEFORE_TOKEN_CHARS:
            start -= 1
        if n - start >= 8:
            kept = kept[:start]
    return kept


def before_tail(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    start = len(text) - n
    kept = text[start:]
    if _BEFORE_TOKEN_CHARS.issuperset(text[start - 1 : start + 1]):
        end = 0
        while end < n and kept[end] in _BEFORE_TOKEN_CHARS:
            end += 1
        if end >= 8:
            kept = kept[end:]
    return kept


def before_cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else before_head(text, limit - 1) + "…"


def before_ends(head: str, tail: str, between: int) -> str:
    kept_head = before_head(head, _BEFORE_PROMPT_HEAD_CHARS)
    kept_tail = before_tail(tail, PROMPT_TAIL_CHARS)
    cut = between + len(head) - len(kept_head) + len(tail) - len(kept_tail)
    return kept_head + CUT_MARK.format(cut) + kept_tail


def before_seal(events: list[Any], start: int = 0, meta: dict[str, Any] | None = None) -> None:
    targets: list[tuple[Any, Any, int, int | None]] = []
    texts: list[str] = []
    add_target, add_text = targets.append, texts.append
    names = _tool_names(default_redactor())
    for event in events[start:] if start else events:
        kind = event[0]
        if kind == RESULT:
            if event[4]:
                add_target((event, 4, RESULT_CHARS, None))
                add_text(event[4])
        elif kind == CALL:
            name = event[4]
            if name:
                event[4] = names.get(name) or _name_of(names, name)
            if event[5]:
                add_target((event, 5, INPUT_CHARS, None))
                add_text(event[5])
        elif kind == ASSISTANT:
            if event[3]:
                add_target((event, 3, TEXT_CHARS, None))
                add_text(event[3])
        elif kind == USER and event[3]:
            text = event[3]
            parts = text.split("\x00") if "\x00" in text else []
            if len(parts) == 3:
                add_target((event, 3, PROMPT_CHARS, int(parts[1])))
                texts.extend((parts[0], parts[2]))
            else:
                add_target((event, 3, PROMPT_CHARS, _BEFORE_WHOLE))
                add_text(text)
    for key in META_TEXTS if meta else ():
        value = meta.get(key) if meta else None
        if isinstance(value, str) and value:
            add_target((meta, key, 0, None))
            add_text(value)
        elif value is not None and meta is not None:
            meta[key] = ""
    if len(texts) <= SEAL_BATCH:
        cleaned = redact_many(texts) if texts else texts
    else:
        cleaned = []
        for start_at in range(0, len(texts), SEAL_BATCH):
            cleaned.extend(redact_many(texts[start_at : start_at + SEAL_BATCH]))
    at = 0
    for holder, slot, limit, between in targets:
        text = cleaned[at]
        at += 1
        if between is None:
            if limit and len(text) > limit:
                holder[slot] = before_cut(text, limit)
            elif text is not texts[at - 1]:
                holder[slot] = text
        elif between == _BEFORE_WHOLE:
            holder[slot] = before_ends(text, text, -len(text)) if len(text) > limit else text
        else:
            holder[slot] = before_ends(text, cleaned[at], between)
            at += 1


def before_build_steps(
    events: Sequence[list[Any]],
) -> tuple[tuple[Any, ...], list[int], float | None, float | None]:
    steps: list[Any] = []
    interrupted: list[int] = []
    pending: list[Any] | None = None
    calls: dict[str, list[Any]] = {}
    seen: set[str] = set()
    first: float | None = None
    last: float | None = None
    last_user: int | None = None
    for event in events:
        kind, ts, key = event[0], event[1], event[2]
        if key is not None:
            key = key if isinstance(key, str) else repr(key)
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
    return tuple(before_close(s) for s in steps), interrupted, first, last


def before_close(step: Any) -> Any:
    if isinstance(step, tuple):
        return step
    ts, texts, calls = step
    return ("assistant", "\n\n".join(texts), ts, tuple(before_call(c) for c in calls))


def before_call(call: list[Any]) -> Any:
    call_id, name, input_text, result, is_error, exit_code = call
    failed = bool(is_error) or (exit_code is not None and exit_code != 0)
    return (call_id, name or "", input_text or "", result or "", failed, exit_code)


def before_draft(
    harness: Any,
    session_id: str,
    project: str,
    states: Sequence[FileState],
    source_files: Sequence[str],
    fallback_ts: float,
) -> Draft | str:
    if any(s.meta.get("engine") for s in states):
        return "engine session"
    steps, interrupted, first, last = before_build_steps(_ordered_events(states))
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


def before_count(self: Tally, made: Draft) -> tuple[int, int, int, int]:
    calls = sum(len(step[3]) for step in made.steps)
    errors = sum(1 for step in made.steps for c in step[3] if c[4])
    corrections = sum(1 for s in made.signals if s[0] == SignalKind.CORRECTION.value)
    added = (len(made.steps), calls, errors, corrections)
    self._add(1, added)
    return added


def before_session_key(source: Any, state: FileState, path: str) -> str:
    return source.session_key(state, Path(path))


# ------------------------------------------------------------------ generated events

KEYS = st.one_of(
    st.none(),
    st.sampled_from(["k1", "k2", "k3", "1", "2", "[1]"]),
    st.integers(1, 2),  # a non-text key is compared as its repr: 1 is "1"
    st.lists(st.just(1), max_size=1),  # and [1] is "[1]" (a list is not hashable)
)
STAMPS = st.one_of(
    st.none(),
    st.sampled_from([1_700_000_000.0, 1_700_000_001.5]),
    st.floats(1.6e9, 1.8e9, allow_nan=False),
)
CALL_IDS = st.sampled_from(["toolu_1", "toolu_2", ""])
SHORT = st.sampled_from(["", "", "fix the test", "no, that's wrong", "thanks", "ls -la", "é"])
ERRORS = st.sampled_from([None, False, True, 0, 1])
EXITS = st.sampled_from([None, 0, 1, 2, -1, 0.0, False])


def _event_lists(texts: st.SearchStrategy[str], names: st.SearchStrategy[Any]) -> Any:
    def event(kind: str, *fields: st.SearchStrategy[Any]) -> Any:
        return st.tuples(STAMPS, KEYS, *fields).map(lambda t: [kind, *t])

    return st.lists(
        st.one_of(
            event(USER, texts),
            event(ASSISTANT, texts),
            event(CALL, CALL_IDS, names, texts),
            event(RESULT, CALL_IDS, texts, ERRORS, EXITS),
            event(INTERRUPT),
            event("other"),
        ),
        max_size=40,
    )


PIECES = [
    "fix the test ",
    "word",
    "tokenAbC123",
    "-",
    "/path/to/file.py",
    " ",
    "\n",
    "é",
    "日本",
    "key=value ",
    "Bearer ",
    TOKENS["github-pat-classic"],
    TOKENS["openai-key"],
    PLANTED_KEY,
]


@st.composite
def _text(draw: st.DrawFn, limit: int) -> str:
    """A text of a few characters, or one a few characters either side of ``limit`` (and its
    redaction margin), made of words, token runs and secrets, one maybe at the cut."""
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6))
    body = "".join(pieces)
    size = draw(
        st.one_of(
            st.integers(0, 40),
            st.integers(max(0, limit - 12), limit + 12),
            st.integers(limit + REDACT_MARGIN - 12, limit + REDACT_MARGIN + 12),
        )
    )
    text = (body * (size // len(body) + 1))[:size]
    if draw(st.booleans()):
        secret = draw(st.sampled_from([TOKENS["github-pat-classic"], PLANTED_KEY, "A" * 40]))
        at = draw(st.integers(max(0, size - 60), size))
        text = text[:at] + secret + text[at:]
    return text


@st.composite
def _prompt(draw: st.DrawFn) -> str:
    """A prompt as a reader leaves it: short, kept whole just past the limit, or windowed (the
    NUL-joined form ``user`` makes); or one carrying stray or malformed NUL join markers."""
    form = draw(st.sampled_from(["short", "whole", "windowed", "marker", "stray"]))
    if form == "short":
        return draw(_text(40))
    if form == "whole":
        return draw(_text(PROMPT_CHARS))
    if form == "windowed":
        long = draw(_text(PROMPT_CHARS + 4000))
        return str(user(None, long)[3])
    if form == "marker":
        between = draw(st.sampled_from(["12", "0", "-3", " 7", "1_0", "x", ""]))
        return f"{draw(_text(6000))}\x00{between}\x00{draw(_text(2000))}"
    return "\x00".join(draw(st.lists(_text(20), min_size=2, max_size=4)))


def _sealable() -> Any:
    def event(kind: str, *fields: st.SearchStrategy[Any]) -> Any:
        return st.tuples(STAMPS, KEYS, *fields).map(lambda t: [kind, *t])

    name = st.sampled_from(["", "Bash", "mcp__x__ghp_" + "a1B2" * 9, TOKENS["openai-key"]])
    return st.lists(
        st.one_of(
            event(USER, _prompt()),
            event(ASSISTANT, _text(TEXT_CHARS)),
            event(CALL, CALL_IDS, name, _text(INPUT_CHARS)),
            event(RESULT, CALL_IDS, _text(RESULT_CHARS), ERRORS, EXITS),
            event(INTERRUPT),
        ),
        max_size=24,
    )


META_VALUES = st.one_of(
    st.none(),
    st.just(""),
    st.sampled_from(["/home/dev/webapp", "main", "fix/" + TOKENS["github-pat-classic"]]),
    st.integers(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.floats(allow_nan=False),
)
META = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from([*META_TEXTS, "engine", "other"]), META_VALUES),
)


def _outcome(run: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", run()
    except Exception as exc:  # the same error, raised at the same point
        return type(exc).__name__, str(exc)


# ------------------------------------------------------------------ the comparisons


@st.composite
def _cuts(draw: st.DrawFn) -> tuple[str, int]:
    """A text of token runs (0 to 12 long) and the characters between them, and where to cut it
    (anywhere from before its start to past its end)."""
    runs = draw(
        st.lists(
            st.tuples(
                st.integers(0, 12),
                st.sampled_from("aB9-_=+/.~"),
                st.sampled_from(["", " ", "é", "\n"]),
            ),
            max_size=6,
        )
    )
    text = "".join(char * size + gap for size, char, gap in runs)
    return text, draw(st.integers(-3, len(text) + 2))


@settings(max_examples=500, deadline=None)
@given(_cuts())
def test_head_and_tail_match_the_code_before(cut: tuple[str, int]) -> None:
    text, n = cut
    assert _head(text, n) == before_head(text, n)
    assert _tail(text, n) == before_tail(text, n)


@pytest.mark.parametrize("size", [PROMPT_CHARS - 1, PROMPT_CHARS, PROMPT_CHARS + 1])
@pytest.mark.parametrize("redacted", [False, True])
def test_seal_cuts_a_prompt_kept_whole_as_before(size: int, redacted: bool) -> None:
    secret = PLANTED_KEY if redacted else ""
    text = (secret + " why does the login test fail? " * 300)[:size]
    now, before = [[USER, None, None, text]], [[USER, None, None, text]]
    seal(now)
    before_seal(before)
    assert now == before


@settings(max_examples=300, deadline=None)
@given(_sealable(), st.integers(0, 30), META)
def test_seal_matches_the_code_before(
    events: list[Any], start: int, meta: dict[str, Any] | None
) -> None:
    start = min(start, len(events))
    before_events, before_meta = copy.deepcopy((events, meta))
    now = _outcome(lambda: seal(events, start, meta))
    before = _outcome(lambda: before_seal(before_events, start, before_meta))
    assert now == before
    assert events == before_events and meta == before_meta


@settings(max_examples=300, deadline=None)
@given(_event_lists(SHORT, st.sampled_from([None, "", "Bash", "Read"])))
def test_build_steps_matches_the_code_before(events: list[Any]) -> None:
    kept = copy.deepcopy(events)
    assert build_steps(events) == before_build_steps(events)
    assert events == kept  # read only


def _call(ts: float | None, key: Any, call_id: str, name: Any = "Bash", args: str = "ls") -> Any:
    return [CALL, ts, key, call_id, name, args]


def _result(ts: float | None, key: Any, call_id: str, text: str, error: Any, code: Any) -> Any:
    return [RESULT, ts, key, call_id, text, error, code]


CASES = {
    "a late result, after the next prompt": [
        [USER, 1.0, "u1", "run it"],
        _call(2.0, "c1", "t1"),
        [USER, 3.0, "u2", "and then?"],
        _result(4.0, "r1", "t1", "out", False, 0),
    ],
    "a result before its call, and one without": [
        [USER, 1.0, None, "go"],
        _result(2.0, None, "t1", "early", True, None),
        _call(3.0, None, "t1"),
        _result(4.0, None, "t9", "orphan", True, 1),
    ],
    "an error result, then clean ones for the same call": [
        [USER, 1.0, None, "go"],
        _call(2.0, None, "t1", "", ""),
        _result(3.0, None, "t1", "", True, None),
        _result(4.0, None, "t1", "fine", False, 2),
        _result(4.5, None, "t1", "done", False, 0),
        _call(5.0, None, "t1", "Read", "late input"),
        _call(6.0, None, "t2"),
        _result(7.0, None, "t2", "boom", True, None),
        _result(8.0, None, "t2", "", None, None),
    ],
    "a call id repeated in a later turn opens it": [
        [USER, 1.0, None, "go"],
        _call(2.0, None, "t1"),
        [USER, 3.0, None, "again"],
        _call(4.0, None, "t1"),
        [ASSISTANT, 5.0, None, "reply"],
    ],
    "keys repeated, as text and not": [
        [USER, 5.0, 1, "first"],
        [USER, 1.0, "1", "dropped"],
        [ASSISTANT, None, [1], "kept"],
        [ASSISTANT, 9.0, "[1]", "dropped"],
        [INTERRUPT, 2.0, None],
        [USER, None, None, ""],
        [INTERRUPT, 3.0, "k"],
    ],
    "an interrupt before any prompt, and empty turns": [
        [INTERRUPT, None, None],
        [ASSISTANT, None, None, ""],
        [USER, None, None, "hi"],
        ["other", 7.0, None],
    ],
}


@pytest.mark.parametrize("events", CASES.values(), ids=CASES.keys())
def test_build_steps_matches_the_code_before_on_written_cases(events: list[Any]) -> None:
    assert build_steps(events) == before_build_steps(events)


@st.composite
def _states(draw: st.DrawFn) -> list[FileState]:
    states = []
    for _ in range(draw(st.integers(1, 3))):
        meta = draw(
            st.dictionaries(
                st.sampled_from(["cwd", "model", "git_branch", "forked_from", "engine"]),
                META_VALUES,
            )
        )
        events = draw(_event_lists(SHORT, st.sampled_from([None, "", "Bash"])))
        states.append(FileState(meta, events))
    return states


@settings(max_examples=300, deadline=None)
@given(_states(), st.lists(st.sampled_from(["/b.jsonl", "/a.jsonl", "/c.jsonl"]), max_size=3))
def test_draft_and_its_count_match_the_code_before(
    states: list[FileState], files: list[str]
) -> None:
    made = draft("claude", "s1", "/p", states, files, 1_650_000_000.0)
    before = before_draft("claude", "s1", "/p", states, files, 1_650_000_000.0)
    assert type(made) is type(before) and made == before
    if isinstance(made, Draft):
        now, old = Tally("claude"), Tally("claude")
        assert now.count(made) == before_count(old, made)
        assert vars(now) == vars(old)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant"]),
            st.lists(st.tuples(st.just("id"), ERRORS, EXITS), max_size=3),
        ),
        max_size=6,
    ),
    st.lists(st.sampled_from([k.value for k in SignalKind]), max_size=5),
)
def test_count_matches_the_code_before(
    shape: list[tuple[str, list[tuple[str, Any, Any]]]], kinds: list[str]
) -> None:
    steps = tuple(
        (role, "text", None, tuple((i, "n", "", "", error, code) for i, error, code in calls))
        for role, calls in shape
    )
    made = Draft("claude", "s", "/p", "/p", 0.0, 0.0, steps, tuple((k, 0, "") for k in kinds),
                 "", "", ())  # fmt: skip
    now, old = Tally("claude"), Tally("claude")
    for _ in range(2):
        assert now.count(made) == before_count(old, made)
    assert vars(now) == vars(old)


@pytest.mark.parametrize(
    "source", [ClaudeSource(), CodexSource(), CopilotCliSource(), VsCodeChatSource()]
)
@pytest.mark.parametrize("session_id", ["", "abc-123", 7])
def test_session_key_matches_the_code_before(source: Any, session_id: Any, tmp_path: Path) -> None:
    workspace = tmp_path / "workspaceStorage" / "1234"
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text('{"folder": "file:///home/dev/webapp"}')
    uuid = "0004d610-9f4b-5528-e28e-46e2a8031a38"
    paths = [
        f"{tmp_path}/projects/-p/{uuid}.jsonl",
        f"{tmp_path}/sessions/2025/01/02/rollout-2025-01-02T03-04-05-{uuid}.jsonl",
        f"{tmp_path}/session-state/abc/events.jsonl",
        f"{workspace}/chatSessions/xyz.json",  # VS Code: the workspace's folder is recorded
    ]
    for path in paths:
        meta = {"session_id": session_id} if session_id != "" else {}
        now, old = FileState(dict(meta)), FileState(dict(meta))
        workspace_folder.cache_clear()
        assert _session_key(source, now, path) == before_session_key(source, old, path)
        assert now.meta == old.meta


@pytest.mark.parametrize("skipped", [{}, {"malformed json": 2}])
def test_unflat_gives_a_counter_either_way(skipped: dict[str, int]) -> None:
    job = ReadJob("/x.jsonl", FileId(1, 2, 3, 4), 0, None, False)
    flat = (9, (1, 2, 3, 4, 0, ""), skipped, "", b"", "k", "/p", True, "no user request", 0, b"")
    outcome = _unflat(job, flat)
    assert isinstance(outcome.skipped, Counter) and outcome.skipped == Counter(skipped)
    outcome.skipped["timestamp out of range"] += 1  # a Counter the reader can add to
    assert outcome.skipped["timestamp out of range"] == 1


def _frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The code before, patched in wherever the harvest calls it."""
    monkeypatch.setattr(_events, "_head", before_head)
    monkeypatch.setattr(_events, "_tail", before_tail)
    monkeypatch.setattr(_reading, "seal", before_seal)
    monkeypatch.setattr(_build, "build_steps", before_build_steps)
    monkeypatch.setattr(_reading, "draft", before_draft)
    monkeypatch.setattr(_harvest, "draft", before_draft)
    monkeypatch.setattr(Tally, "count", before_count)
    monkeypatch.setattr(_reading, "_session_key", before_session_key)


@pytest.mark.parametrize("project", [WEBAPP, READING])
def test_harvests_of_the_genuine_transcripts_match_the_code_before(
    project: str, homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(index: str) -> Any:
        found = harvest(project, ("claude", "codex"), index=tmp_path / index, homes=homes)
        return found.sessions, dict(found.stats), dict(found.first_new)

    now = run("now")
    with monkeypatch.context() as patched:
        _frozen(patched)
        before = run("before")
    assert now == before and now[0]
