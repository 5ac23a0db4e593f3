"""The Claude Code reader's C fold (``_claude_fast.c``) reads every line exactly as the Python path
(``orjson.loads`` then ``ClaudeSource.feed``) does, or declines it having changed nothing.

Each comparison reads the same lines with the Python path alone, with ``fold`` line by line
(a declined line goes to ``_feed``) and with ``fold_lines`` as the reader runs it
(``_feed_blocks``), and compares the file's meta (in insertion order), its events (every value
with its type: ``1``, ``1.0`` and ``True`` differ) and the skip counts. Lines come from every
Claude fixture, a generated corpus, hypothesis and hand-written edge cases. A typed prompt's
text goes from the fold to ``claude._typed_prompt`` (registered with ``set_prompt``), which the
Python path calls too.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import importlib
import json
import os
import subprocess
import sys
import tracemalloc
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_core.markers import ENGINE_MARKER
from skillopt_sleep.harvest import _compiled, _reading, claude
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import LineRead, stat_id
from skillopt_sleep.harvest._registry import Feed, HarvestConfig
from skillopt_sleep.harvest.claude import ClaudeSource
from tests.harvest import _claude_records as recs
from tests.harvest._fixtures import iter_lines

MODULE = _compiled.load("_claude_fast")
SIDECHAIN = _reading._SKIP_REASONS[Feed.SIDECHAIN]
ROOT = Path(__file__).resolve().parents[2]
SHARED = Path("/work/shared")
PROJECT = Path("/home/dev/webapp")


def _why_not_compiled() -> str:
    if os.environ.get("SKILLOPT_PURE_PYTHON"):
        return "SKILLOPT_PURE_PYTHON is set: the C fold is off"
    try:
        importlib.import_module("skillopt_sleep.harvest._claude_fast")
    except ImportError:
        return "the C fold is not built (pip install -e . with a C compiler)"
    return "the C fold's build is older than its source (pip install -e . again)"


def fast() -> ModuleType:
    """The compiled module (the tests that call it are marked ``needs_fold``)."""
    assert MODULE is not None
    return MODULE


needs_fold = pytest.mark.skipif(MODULE is None, reason=_why_not_compiled() if not MODULE else "")
_FAST = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


class _PurePython(ClaudeSource):
    """The reference: the same reader without its compiled fold."""

    fold_lines = None


PURE, COMPILED = _PurePython(), ClaudeSource()
Meta = dict[str, Any]


def typed(value: Any) -> Any:
    """``value`` with every leaf paired with its type, so ``==`` tells 1, 1.0 and True apart."""
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [typed(item) for item in value]
    if isinstance(value, dict):
        return "dict", [(key, typed(item)) for key, item in value.items()]  # in insertion order
    return type(value).__name__, value


def _config(sidechains: bool) -> HarvestConfig:
    return HarvestConfig(PROJECT, include_sidechains=sidechains)


def read(
    lines: Sequence[bytes],
    how: str,
    sidechains: bool = False,
    meta: Meta | None = None,
    events: list[Any] | None = None,
) -> tuple[Any, Any, dict[str, int]]:
    """The state and skip counts after reading ``lines`` onto a copy of ``meta`` and ``events``:
    ``how`` is "python" (no fold), "fold" (line by line) or "fold_lines" (as the reader does)."""
    state = FileState(copy.deepcopy(meta or {}), copy.deepcopy(events or []))
    skipped: Counter[str] = Counter()
    config = _config(sidechains)
    if how == "python":
        _reading._feed(PURE, state, lines, config, skipped)
    elif how == "fold":
        for line in lines:
            handled = fast().fold(line, state.meta, state.events, sidechains)
            if handled == 2:
                skipped[SIDECHAIN] += 1
            elif handled == 0:
                _reading._feed(PURE, state, [line], config, skipped)
    else:
        data = b"".join(line + b"\n" for line in lines)
        _reading._feed_blocks(COMPILED, state, [(data, len(data))], config, skipped)
    return typed(state.meta), typed(state.events), dict(skipped)


def assert_same(
    lines: Sequence[bytes],
    sidechains: bool = False,
    meta: Meta | None = None,
    events: list[Any] | None = None,
) -> None:
    """Both folds read ``lines`` (a file's, in order) exactly as the Python path does."""
    lines = [part for line in lines for part in line.split(b"\n")]  # a line holds no newline
    expected = read(lines, "python", sidechains, meta, events)
    assert read(lines, "fold", sidechains, meta, events) == expected
    assert read(lines, "fold_lines", sidechains, meta, events) == expected


def fold_once(
    line: bytes,
    sidechains: bool = False,
    meta: Meta | None = None,
    events: list[Any] | None = None,
) -> int:
    """``fold`` of one line onto copies of ``meta`` and ``events``; a declined line (0) or a
    skipped sidechain record (2) must leave them as they were, and ``fold_lines`` must agree."""
    assert b"\n" not in line
    before_meta, before_events = copy.deepcopy(meta or {}), copy.deepcopy(events or [])
    after_meta, after_events = copy.deepcopy(before_meta), copy.deepcopy(before_events)
    handled = fast().fold(line, after_meta, after_events, sidechains)
    assert handled in (0, 1, 2)
    if handled != 1:
        assert typed(after_meta) == typed(before_meta)
        assert typed(after_events) == typed(before_events)
    state = FileState(copy.deepcopy(before_meta), copy.deepcopy(before_events))
    data = line + b"\n"
    stopped = (0, len(line)) if handled == 0 and line else (-1, -1)  # an empty line: passed over
    result = fast().fold_lines(data, 0, len(data), state, sidechains)
    assert result == (len(data), *stopped, int(handled == 2))
    assert typed(state.meta) == typed(after_meta)
    assert typed(state.events) == typed(after_events)
    return int(handled)


def check(
    line: bytes,
    sidechains: bool = False,
    meta: Meta | None = None,
    events: list[Any] | None = None,
) -> int:
    """One line through both checks above; what ``fold`` returned."""
    handled = fold_once(line, sidechains, meta, events)
    assert_same([line], sidechains, meta, events)
    return handled


def line(record: Any, ensure_ascii: bool = True) -> bytes:
    return json.dumps(record, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")


STAMP = "2026-11-20T10:00:00.123Z"


def turn(*content: Any, **fields: Any) -> dict[str, Any]:
    record = {"type": "assistant", "sessionId": "s1", "cwd": str(PROJECT), "gitBranch": "main",
              "uuid": "a1", "timestamp": STAMP,
              "message": {"model": "claude-opus-4", "content": list(content)}}  # fmt: skip
    record.update(fields)
    return record


def results(*content: Any, **fields: Any) -> dict[str, Any]:
    record = {"type": "user", "sessionId": "s1", "cwd": str(PROJECT), "uuid": "u1",
              "timestamp": STAMP, "message": {"role": "user", "content": list(content)},
              "toolUseResult": {"stdout": "ok", "stderr": "", "interrupted": False}}  # fmt: skip
    record.update(fields)
    return record


class _Unsure:
    def __bool__(self) -> bool:
        raise ZeroDivisionError


def prompt(content: Any, **fields: Any) -> dict[str, Any]:
    """A user record of a typed prompt, as Claude Code writes it."""
    record = {"parentUuid": None, "isSidechain": False, "userType": "external",
              "cwd": str(PROJECT), "sessionId": "s1", "version": "2.0.0", "gitBranch": "main",
              "type": "user", "message": {"role": "user", "content": content}, "uuid": "p1",
              "timestamp": STAMP}  # fmt: skip
    record.update(fields)
    return record


def text(value: Any) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(value: Any = None, **fields: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": value}}
    block.update(fields)
    return block


def tool_result(content: Any, error: Any = False, **fields: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": content, "is_error": error}
    block.update(fields)
    return block


# ---- the build ---------------------------------------------------------------------------------


def test_ci_always_builds_the_fold() -> None:
    """CI must exercise the fold: there a missing or stale build fails instead of skipping."""
    if not os.environ.get("CI"):
        pytest.skip("outside CI a missing build only skips the fold's tests")
    importlib.import_module("skillopt_sleep.harvest._claude_fast")
    if not os.environ.get("SKILLOPT_PURE_PYTHON"):
        assert MODULE is not None, _why_not_compiled()
        assert ClaudeSource.fold_lines is fast().fold_lines


def test_pure_python_is_one_variable_away(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_PURE_PYTHON", "1")
    assert _compiled.load("_claude_fast") is None
    code = "from skillopt_sleep.harvest.claude import ClaudeSource; print(ClaudeSource.fold_lines)"
    env = {**os.environ, "SKILLOPT_PURE_PYTHON": "1"}
    shown = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True)
    assert shown.stdout.strip() == b"None", shown.stderr


@needs_fold
def test_the_reader_uses_the_fold() -> None:
    assert ClaudeSource.fold_lines is fast().fold_lines


# ---- the common shapes are folded, not declined ----------------------------------------------


TAKEN = {
    "assistant turn": turn(text("Looking."), tool_use("ls -la"), {"type": "thinking"}),
    "assistant text": turn(message={"content": "plain text", "model": "<synthetic>"}),
    "tool results": results(tool_result("out"), tool_result([text("a"), text("b")], True)),
    "one Bash result": results(tool_result("done")),
    "failed command": results(tool_result("Exit code 2\nboom", True)),
    "interrupted": results(tool_result("[Request interrupted by user for tool use]")),
    "image result": results(tool_result([{"type": "image", "source": {}}])),
    "meta record": results(text("caveat"), isMeta=True),
    "no timestamp": turn(text("x"), timestamp=None, uuid=""),
    "HEAD branch": turn(text("x"), gitBranch="HEAD", sessionId=None),
    "spaced JSON": turn(text("é ✓ 😀")),
    "a typed prompt": {"type": "user", "message": {"content": "fix it"}},
    "typed prompt": prompt("fix the tests"),
    "interrupted prompt": prompt("[Request interrupted by user]"),
    "slash command": prompt(recs.COMMAND + "<command-args>12</command-args>"),
    "harness noise": prompt("<local-command-stdout>ok</local-command-stdout>"),
    "engine prompt": prompt(f"{ENGINE_MARKER}\nreview this"),
    "queue operation": {"type": "queue-operation", "operation": "enqueue", "content": "x"},
    "last prompt": {"type": "last-prompt", "lastPrompt": "fix it", "sessionId": "other"},
    "attachment": {
        "type": "attachment",
        "attachment": {"type": "file", "content": "z" * 5000},
        "isSidechain": True,
        "cwd": "/elsewhere",
        "timestamp": "odd",
    },
    "system record": {"type": "system", "message": 3, "uuid": 7, "sessionId": None},
}
TAKEN_LINES = [line(record) for record in TAKEN.values()]


@needs_fold
@pytest.mark.parametrize("name", TAKEN)
def test_common_records_are_folded_in_c(name: str) -> None:
    for ensure_ascii in (True, False):
        data = line(TAKEN[name], ensure_ascii)
        if name == "spaced JSON":
            data = json.dumps(TAKEN[name], separators=(" , ", " : ")).encode()
        assert check(data) == 1
        assert check(data, meta={"session_id": "", "cwd": 0, "git_branch": "dev"}) == 1


@needs_fold
def test_the_fold_drops_the_record_types_feed_ignores() -> None:
    from skillopt_sleep.harvest import _claude_fast, claude

    assert claude._IGNORED_TYPES == _claude_fast.IGNORED_TYPES
    for kind in sorted(claude._IGNORED_TYPES):
        assert check(line({"type": kind, "sessionId": "s2", "cwd": "/w", "uuid": "x"})) == 1


@needs_fold
def test_a_sidechain_record_is_skipped_or_folded() -> None:
    record = turn(text("sub-agent"), isSidechain=True)
    assert check(line(record)) == 2
    assert check(line(record), sidechains=True) == 1


# ---- hand-written edge cases -----------------------------------------------------------------

_TURN = line(turn(text("hi")))
_RESULT = line(results(tool_result("out")))
DECLINED = {
    "escaped record key": _TURN.replace(b'"type"', b'"t\\u0079pe"', 1),
    "escaped block key": _RESULT.replace(b'"content": "out"', b'"c\\u006fntent": "out"'),
    "escaped type value": _TURN.replace(b'"assistant"', b'"\\u0061ssistant"'),
    "escaped block type": _TURN.replace(b'"text", "text"', b'"t\\u0065xt", "text"'),
    "duplicated type": _TURN.replace(
        b'{"type": "assistant"', b'{"type": "user", "type": "assistant"'
    ),
    "duplicated message": _TURN[:-1] + b', "message": {"content": "again"}}',
    "duplicated uuid": _TURN[:-1] + b', "uuid": "a2"}',
    "duplicated text": _TURN.replace(b'"text": "hi"', b'"text": "hi", "text": "ho"'),
    "duplicated stdout": _RESULT.replace(b'"stdout": "ok"', b'"stdout": "ok", "stdout": "no"'),
    "lone high surrogate": _TURN.replace(b'"hi"', b'"\\ud83d"'),
    "lone low surrogate": _TURN.replace(b'"hi"', b'"\\ude00"'),
    "reversed pair": _TURN.replace(b'"hi"', b'"\\ude00\\ud83d"'),
    "raw surrogate bytes": _TURN.replace(b'"hi"', b'"\xed\xa0\xbd"'),
    "overlong UTF-8": _TURN.replace(b'"hi"', b'"\xc0\xaf"'),
    "invalid UTF-8": _TURN.replace(b"hi", b"h\xffi"),
    "raw control": _TURN.replace(b"hi", b"h\x01i"),
    "1e400 noise": _TURN[:-1] + b', "n": 1e400}',
    "400 digits": _TURN[:-1] + b', "n": ' + b"7" * 400 + b"}",
    "nesting 65": _TURN[:-1] + b', "n": ' + b"[" * 65 + b"]" * 65 + b"}",
    "NaN": _TURN[:-1] + b', "n": NaN}',
    "trailing garbage": _TURN + b"x",
    "two records": _TURN + _TURN,
    "a list": b"[" + _TURN + b"]",
    "an unknown record type": line({"type": "brand-new-record", "sessionId": "s9"}),
    "an escaped ignored type": line({"type": "queue-operation"}).replace(b"queue", b"\\u0071ueue"),
    "an ignored type's bad JSON": b'{"type": "queue-operation", "x": }',
    "a numeric type": line({"type": 7}),
    "a prompt's lone surrogate": line(prompt("a\ud83d")),
    "a prompt's reversed pair": line(prompt("\ude00\ud83d")),
    "a prompt's raw surrogate": line(prompt("a\ud83d"), ensure_ascii=False),
    "a prompt's invalid UTF-8": line(prompt("fix it")).replace(b"fix", b"f\xffx"),
    "a prompt's raw control": line(prompt("fix it")).replace(b"fix", b"f\x01x"),
    "a prompt's escaped content key": line(prompt("x")).replace(b'"content"', b'"c\\u006fntent"'),
    "a prompt's escaped type": line(prompt("x")).replace(b'"user"', b'"\\u0075ser"'),
    "a prompt's content twice": line(prompt("x")).replace(
        b'"content"', b'"content": "y", "content"'
    ),
    "a prompt's offset timestamp": line(prompt("x", timestamp="2026-11-20T10:00:00+01:00")),
    "a prompt's epoch timestamp": line(prompt("x", timestamp=1_700_000_000)),
    "a forked prompt": line(prompt("x", forkedFrom={"sessionId": "p"})),
    "a prompt's numeric flag": line(prompt("x", isMeta=0)),
    "an object content": line(prompt({"type": "text", "text": "x"})),
    "a numeric content": line(prompt(5)),
    "a text block from the user": line(results(text("fix it"))),
    "a string block": line(results("fix it")),
    "serialised input": line(turn(tool_use(None, input=["ls"]))),
    "input with no known field": line(turn(tool_use(None, input={"x": 1}))),
    "numeric text": line(turn(text(5))),
    "true id": line(turn(tool_use("ls", id=True))),
    "string flag": line(results(tool_result("x", "yes"))),
    "numeric sidechain": line(turn(text("x"), isSidechain=1)),
    "forked record": line(turn(text("x"), forkedFrom={"sessionId": "p"})),
    "numeric branch": line(turn(text("x"), gitBranch=7)),
    "epoch timestamp": line(turn(text("x"), timestamp=1_700_000_000)),
    "offset timestamp": line(turn(text("x"), timestamp="2026-11-20T10:00:00+05:00")),
    "naive timestamp": line(turn(text("x"), timestamp="2026-11-20T10:00:00")),
    "year 2100": line(turn(text("x"), timestamp="2100-01-01T00:00:00Z")),
    "year 1999": line(turn(text("x"), timestamp="1999-12-31T23:59:59Z")),
    "Feb 29 2023": line(turn(text("x"), timestamp="2023-02-29T00:00:00Z")),
    "Unicode exit code": line(results(tool_result("Exit code ١٢", True))),
    "numeric background task": line(
        results(
            tool_result("x"),
            toolUseResult={"stdout": "", "interrupted": False, "backgroundTaskId": 0},
        )
    ),
    "65 blocks": line(turn(*[text("x")] * 65)),
    "33 parts": line(results(tool_result([text("x")] * 33))),
}
KEPT = {
    "nesting 63": _TURN[:-1] + b', "n": ' + b"[" * 62 + b"]" * 62 + b"}",
    "big noise numbers": _TURN[:-1] + b', "n": [1e99, -0.0e-00, 1E+9, ' + b"9" * 38 + b"]}",
    "escaped values": line(turn(text('tab\there \\ "q" \u2028 \U0001f600 \x00'))),
    "Feb 29 2024": line(turn(text("x"), timestamp="2024-02-29T23:59:59.999999Z")),
    "Feb 29 2000": line(turn(text("x"), timestamp="2000-02-29T00:00:00+00:00")),
    "last moment": line(turn(text("x"), timestamp="2099-12-31T23:59:59.999Z")),
    "first moment": line(turn(text("x"), timestamp="2000-01-01T00:00:00Z")),
    "64 blocks": line(turn(*[text("x")] * 64)),
    "32 parts": line(results(tool_result([text("x")] * 32))),
    "empty content": line(results()),
    "ignored record, any content": line(results(text("caveat"), isCompactSummary=True)),
    "leading and trailing spaces": b" \t" + _TURN + b" \r",
    "falsy ids": line(turn(tool_use("ls", id=False, name=None), text(None), text(""))),
    "no input": line(turn(tool_use(None, input=None), {"type": "tool_use"})),
    "fields past the first": line(turn(tool_use(None, input={"command": 3, "url": "u"}))),
    "non-object blocks": line(turn(None, 3, [text("x")], "s", text("y"))),
    "odd part kinds": line(results(tool_result([None, "s", {"type": 1}, text(2), text("k")]))),
}


@needs_fold
@pytest.mark.parametrize("name", DECLINED)
def test_unusual_lines_are_left_to_python(name: str) -> None:
    assert check(DECLINED[name]) == 0
    assert check(DECLINED[name], True, {"session_id": "s0", "git_branch": ""}, [["user"]]) == 0


@needs_fold
def test_an_escaped_key_inside_a_skipped_value_is_read_in_c() -> None:
    assert check(_TURN[:-1] + b', "noise": {"t\\u0079pe": 1}}') == 1


@needs_fold
@pytest.mark.parametrize("name", KEPT)
def test_lines_the_fold_can_still_read(name: str) -> None:
    assert check(KEPT[name]) == 1
    assert check(KEPT[name], True, {"cwd": "/w", "model": "m0", "git_branch": "main"}) == 1


EXIT_CODES = [
    "Exit code 12", "Exit code 0", "Exit code -3", "Exit code -3x", "Exit code 12_", "Exit code 7.5",
    "Exit code 007", "Exit code -", "Exit code  4", "exit code 4", "Exit code 123456789012345678",
    "Exit code 1234567890123456789", "Exit code 12é", "Exit code 12\nboom", "Exit code 3 (x)",
    "Exit code", "Exit code ", "x Exit code 1", "Exit code -0", "Exit code ١٢", "Exit code 1١",
]  # fmt: skip


@needs_fold
@pytest.mark.parametrize("excerpt", EXIT_CODES)
@pytest.mark.parametrize("error", [True, False])
def test_exit_codes(excerpt: str, error: bool) -> None:
    for content in (excerpt, [text(excerpt)], [text(excerpt), text("more")]):
        check(line(results(tool_result(content, error))))
    outcome = {"stdout": excerpt, "interrupted": False, "backgroundTaskId": ""}
    check(line(results(tool_result(excerpt, error), toolUseResult=outcome)))


OUTCOMES: list[Any] = [
    {"stdout": "", "interrupted": False}, {"stdout": None, "interrupted": False},
    {"stdout": "x", "interrupted": True}, {"stdout": "x"}, {"interrupted": False},
    {"stdout": "", "interrupted": False, "backgroundTaskId": "bg"},
    {"stdout": "", "interrupted": False, "backgroundTaskId": ""},
    {"stdout": "", "interrupted": False, "backgroundTaskId": None},
    {"stdout": "", "interrupted": False, "backgroundTaskId": True},
    {"stdout": "", "interrupted": False, "backgroundTaskId": {}},
    {"stdout": "", "interrupted": None}, {"stdout": "", "interrupted": 0}, [], "text", None,
]  # fmt: skip


@needs_fold
@pytest.mark.parametrize("outcome", OUTCOMES, ids=str)
def test_a_clean_exit_is_read_from_the_tool_result(outcome: Any) -> None:
    for blocks in ([tool_result("x")], [tool_result("x"), tool_result("y")], [text("t")]):
        check(line(results(*blocks, toolUseResult=outcome)))


@needs_fold
@pytest.mark.parametrize("cut", sorted(set(recs.CUTS)))
@pytest.mark.parametrize("shift", [-2, -1, 0, 1, 2])
def test_texts_cut_at_their_window(cut: int, shift: int) -> None:
    """A text around its window's length, with a token run (a secret, to the redactor) across
    the cut, written plain, escaped and with multi-byte characters before it."""
    for run in (0, 7, 8, 20):
        for filler in ("a", "é", "😀", "\n", '"'):
            body = filler * (cut + shift - run // 2) + "Ab0+/=_.~-" * 3
            body = body[: cut + shift + run - run // 2]
            for ensure_ascii in (True, False):
                for record in (
                    turn(text(body)),
                    turn(tool_use(body)),
                    results(tool_result(body, True)),
                    results(tool_result([text(body), text("x")])),
                ):
                    assert check(line(record, ensure_ascii)) == 1


# ---- typed prompts ---------------------------------------------------------------------------

_SPACED = [f"{space}{body}{space}" for space in recs.SPACES for body in ("", "fix it")]


@needs_fold
@pytest.mark.parametrize("content", recs.PROMPT_TEXTS + tuple(_SPACED))
def test_typed_prompts_are_folded_in_c(content: str) -> None:
    for ensure_ascii in (True, False):
        data = line(prompt(content), ensure_ascii)
        assert check(data) == 1
        assert check(data, meta={"session_id": "", "cwd": 0, "engine": False}, events=[["x"]]) == 1
        assert check(data, True, {"git_branch": "dev", "engine": True}) == 1


def _events_of(content: str) -> list[Any]:
    state = FileState()
    assert fast().fold(line(prompt(content)), state.meta, state.events, False) == 1
    return state.events


@needs_fold
def test_what_a_typed_prompt_adds() -> None:
    ts = 1795168800.123
    assert _events_of(" fix it\u3000") == [["user", ts, "p1", "fix it"]]
    assert _events_of("\x85[Request interrupted by user]") == [["interrupt", ts, "p1"]]
    assert _events_of(recs.COMMAND + "<command-args> 12 </command-args>") == [
        ["user", ts, "p1", "/review 12"]
    ]
    for content in ("\u2028\x1c\u3000", "<local-command-caveat>x", ""):
        assert _events_of(content) == []
    meta: Meta = {}
    assert fast().fold(line(prompt(f"x {ENGINE_MARKER}")), meta, [], False) == 1
    assert list(meta) == ["session_id", "cwd", "git_branch", "engine"] and meta["engine"] is True


ABSENT = recs.ABSENT
PROMPT_FIELDS: dict[str, tuple[dict[str, Any], int]] = {  # fields -> what fold returns
    "isMeta": ({"isMeta": True}, 1),
    "isCompactSummary": ({"isCompactSummary": True}, 1),
    "isVisibleInTranscriptOnly": ({"isVisibleInTranscriptOnly": True}, 1),
    "false flags": ({"isMeta": False, "isCompactSummary": None}, 1),
    "sidechain": ({"isSidechain": True}, 2),
    "no timestamp": ({"timestamp": None}, 1),
    "timestamp left out": ({"timestamp": ABSENT}, 1),
    "offset stamp": ({"timestamp": "2026-11-20T10:00:00+02:00"}, 0),
    "empty stamp": ({"timestamp": ""}, 0),
    "epoch stamp": ({"timestamp": 1.7e9}, 0),
    "year 2100": ({"timestamp": "2100-01-01T00:00:00Z"}, 0),
    "empty uuid": ({"uuid": ""}, 1),
    "no uuid": ({"uuid": None}, 1),
    "uuid left out": ({"uuid": ABSENT}, 1),
    "numeric uuid": ({"uuid": 5}, 1),
    "odd uuid": ({"uuid": "é:😀"}, 1),
    "no session": ({"sessionId": None, "cwd": "", "gitBranch": "HEAD"}, 1),
    "no record facts": ({"sessionId": ABSENT, "cwd": ABSENT, "gitBranch": ABSENT}, 1),
    "numeric cwd": ({"cwd": 5}, 0),
    "a fork": ({"forkedFrom": {"sessionId": "p0"}}, 0),
    "no fork": ({"forkedFrom": None}, 1),
    "a tool result too": ({"toolUseResult": {"stdout": "x", "interrupted": False}}, 1),
    "odd tool result": ({"toolUseResult": "Error: x"}, 1),
    "a model": ({"message": {"content": "x", "model": "m1"}}, 1),
    "a message list": ({"message": ["x"]}, 0),
}


@needs_fold
@pytest.mark.parametrize("name", PROMPT_FIELDS)
@pytest.mark.parametrize("content", ["fix it", "[Request interrupted by user]", f"{ENGINE_MARKER}"])
def test_a_typed_prompts_record_fields(name: str, content: str) -> None:
    fields, handled = PROMPT_FIELDS[name]
    record = {k: v for k, v in prompt(content, **fields).items() if v is not ABSENT}
    assert check(line(record)) == handled
    assert check(line(record), True, {"session_id": "s0", "engine": False}) == min(handled, 1)


@needs_fold
@pytest.mark.parametrize("shift", [-2, -1, 0, 1, 2, 3000, 50_000])
@pytest.mark.parametrize("filler", ["a", "é", "😀", "\n", '"', "\x00", "\u3000"])
def test_long_prompts(shift: int, filler: str) -> None:
    """A prompt around the length kept whole and past it, with token runs across its head and
    tail cuts, maybe the engine marker in the middle it drops."""
    size = recs.PROMPT_HEAD + recs.PROMPT_TAIL + shift
    for run in (0, 8, 20):
        body = list(filler * size)
        for cut in (recs.PROMPT_HEAD, size - recs.PROMPT_TAIL):
            body[cut - run // 2 : cut - run // 2 + run] = "Ab0+/=_.~-Xy9" * 2
        content = "".join(body[:size])
        for marked in (content, content[: size // 2] + ENGINE_MARKER + content[size // 2 :]):
            for ensure_ascii in (True, False):
                assert check(line(prompt(marked), ensure_ascii)) == 1


ORIGINAL = claude._typed_prompt


@pytest.fixture
def handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Sets what a typed prompt adds, for both paths (the fold's is restored after)."""

    def use(function: Any) -> None:
        monkeypatch.setattr(claude, "_typed_prompt", function)
        fast().set_prompt(function)

    yield use
    fast().set_prompt(ORIGINAL)


def _raising(error: type[BaseException]) -> Any:
    def raise_it(text: str, ts: float | None, key: str | None) -> Any:
        raise error("raised for the test")

    return raise_it


@needs_fold
def test_a_prompt_function_that_raises_a_shape_error(handler: Any) -> None:
    """Declined, changing nothing; Python then skips the record, its session facts kept."""
    handler(_raising(ValueError))
    data = line(prompt("fix it"))
    assert check(data) == 0
    skipped = read([data], "fold_lines")[2]
    assert skipped == {"unexpected record shape": 1}


@needs_fold
@pytest.mark.parametrize("error", [RuntimeError, MemoryError, KeyboardInterrupt])
def test_a_prompt_function_that_raises(handler: Any, error: type[BaseException]) -> None:
    """It raises from both paths; only an `Exception` declines the line (then Python raises it
    again), so an interrupt is not swallowed and raises from the fold, which changed nothing."""
    handler(_raising(error))
    data = line(prompt("fix it"))
    for how in ("python", "fold", "fold_lines"):
        with pytest.raises(error):
            read([data], how)
    meta: Meta = {}
    events: list[Any] = []
    if issubclass(error, Exception):
        assert fast().fold(data, meta, events, False) == 0
    else:
        with pytest.raises(error):
            fast().fold(data, meta, events, False)
    assert meta == {} and events == []


@needs_fold
def test_the_prompt_function_is_called_once_a_prompt(handler: Any) -> None:
    calls: list[tuple[Any, ...]] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return ORIGINAL(*args)

    handler(counted)
    lines = [line(prompt(f"p{n}", uuid=f"u{n}")) for n in range(5)] + [_TURN, _RESULT]
    data = b"\n".join(lines)
    state = FileState()
    assert fast().fold_lines(data, 0, len(data), state, False) == (len(data), -1, -1, 0)
    assert [call[0] for call in calls] == [f"p{n}" for n in range(5)]
    assert [call[2] for call in calls] == [f"u{n}" for n in range(5)]


@needs_fold
@pytest.mark.parametrize(
    "returned", [None, [], ("x",), ({}, False), ("user", True), (None, _Unsure()), (None, 0, 1)]
)
def test_a_prompt_function_returning_the_wrong_shape(handler: Any, returned: Any) -> None:
    handler(lambda *args: returned)
    meta: Meta = {}
    events: list[Any] = []
    with pytest.raises((TypeError, ZeroDivisionError)):
        fast().fold(line(prompt("x")), meta, events, False)
    assert meta == {} and events == []


@needs_fold
def test_without_a_prompt_function_typed_prompts_are_declined(handler: Any) -> None:
    fast().set_prompt(None)
    for content in ("fix it", "", recs.INTERRUPTED):
        assert check(line(prompt(content))) == 0
    assert check(line(prompt("x", isMeta=True))) == 1
    with pytest.raises(TypeError):
        fast().set_prompt(5)
    fast().set_prompt(ORIGINAL)
    assert check(line(prompt("fix it"))) == 1


@needs_fold
@settings(_FAST, max_examples=300)
@given(recs.prompts(), recs.starting_states(), st.booleans(), st.booleans())
def test_drawn_prompts(
    content: str, start: tuple[Meta, list[Any]], ascii_: bool, side: bool
) -> None:
    data = line(prompt(content, isSidechain=side), ascii_)
    assert check(data, False, *start) == (2 if side else 1)
    assert check(data, True, *start) == 1


# ---- hypothesis ------------------------------------------------------------------------------


@needs_fold
@settings(_FAST, max_examples=200)
@given(recs.lines(edited=False), recs.starting_states(), st.booleans())
def test_drawn_records(data: bytes, start: tuple[Meta, list[Any]], sidechains: bool) -> None:
    check(data, sidechains, *start)


@needs_fold
@settings(_FAST, max_examples=200)
@given(st.lists(recs.lines(), min_size=1, max_size=3), recs.starting_states(), st.booleans())
def test_drawn_damaged_lines(
    lines: list[bytes], start: tuple[Meta, list[Any]], sidechains: bool
) -> None:
    pieces = [piece for data in lines for piece in data.split(b"\n") if piece]
    for piece in pieces:
        fold_once(piece, sidechains, *start)
    assert_same(lines, sidechains, *start)


@needs_fold
@settings(_FAST, max_examples=300)
@given(st.one_of(recs.iso_timestamps(), recs.iso_timestamps(True), recs.odd_timestamps))
def test_drawn_timestamps(stamp: Any) -> None:
    for record in (turn(text("x"), timestamp=stamp), results(tool_result("x"), timestamp=stamp)):
        check(line(record))


_PREFIXES = [b"", b"{", b'{"type":"assistant","message":{"content":[', b'{"type":"user",']


@needs_fold
@settings(_FAST, max_examples=300)
@given(st.sampled_from(_PREFIXES), st.binary(max_size=64), st.booleans())
def test_random_bytes(prefix: bytes, noise: bytes, sidechains: bool) -> None:
    data = (prefix + noise).replace(b"\n", b" ")
    check(data, sidechains)


# ---- real transcripts --------------------------------------------------------------------------


def _claude_files() -> list[Path]:
    roots = [*ROOT.glob("tests/data/transcripts*"), ROOT / "tests/harvest/fixtures"]
    found = {p for r in roots for p in r.rglob("*.jsonl") if "claude" in str(p.relative_to(r))}
    shared = SHARED / "fixtures/transcripts/.claude"
    found.update(shared.rglob("*.jsonl") if shared.is_dir() else ())
    return sorted(found)


FIXTURE_FILES = _claude_files()


def _lines(path: Path) -> list[bytes]:
    return list(iter_lines(path, 0, LineRead(0)))


def read_whole(source: ClaudeSource, path: Path, sidechains: bool) -> Any:
    """A file read as a harvest reads it (``read_file``): its state, skips and end offset."""
    job = _reading.ReadJob(str(path), stat_id(path), 0, None, False)
    outcome = _reading.read_file(source, job, _config(sidechains))
    assert job.state is not None and not outcome.error
    return typed(job.state.to_json()), dict(outcome.skipped), outcome.offset


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


@needs_fold
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=_shown)
def test_fixture_transcripts(path: Path) -> None:
    lines = _lines(path)
    for sidechains in (False, True):
        assert read_whole(COMPILED, path, sidechains) == read_whole(PURE, path, sidechains)
        assert_same(lines, sidechains)
        assert_same(lines, sidechains, {"session_id": "", "git_branch": "old"}, [["user"]])
    handled = [fold_once(data) for data in lines if data]
    assert handled.count(0) < len(handled)  # the fold read some of it


def test_there_are_claude_fixtures() -> None:
    assert len(FIXTURE_FILES) >= 3, FIXTURE_FILES


def _cuts(size: int) -> Iterator[int]:
    yield from range(min(size, 12))
    yield from range(max(0, size - 12), size)
    yield from range(0, size, max(1, size // 24))


@needs_fold
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=_shown)
def test_cut_fixture_lines(path: Path) -> None:
    """A record cut anywhere (a file still being written) is never folded."""
    for data in _lines(path):
        stripped = data.rstrip()
        for at in sorted(set(_cuts(len(stripped)))):
            assert check(stripped[:at]) == 0


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tool = SHARED / "tools/gen_corpus.py"
    if not tool.is_file():
        pytest.skip(f"no corpus generator at {tool}")
    home = tmp_path_factory.mktemp("corpus")
    subprocess.run([sys.executable, str(tool), str(home), "200"], check=True, capture_output=True)
    files = sorted((home / ".claude/projects").rglob("*.jsonl"))
    assert len(files) == 200
    return files


@needs_fold
def test_generated_corpus(corpus: list[Path]) -> None:
    taken: Counter[int] = Counter()
    prompts = 0
    for path in corpus:
        assert read_whole(COMPILED, path, False) == read_whole(PURE, path, False)
        lines = _lines(path)
        assert read(lines, "fold") == read(lines, "python")
        for data in lines:
            handled = fast().fold(data, {}, [], False)
            taken[handled] += 1
            record = json.loads(data) if data else {}
            if (
                record.get("type") == "user"
                and isinstance(record.get("message"), dict)
                and isinstance(record["message"]["content"], str)
            ):
                prompts += 1
                assert handled == 1, data[:200]  # a typed prompt is folded in C too
    assert prompts >= len(corpus) and taken[1] > 20 * taken[0]


# ---- robustness ----------------------------------------------------------------------------------

BIG = 5_000_000
HUGE = {  # (record, ensure_ascii): about 5 MB written
    "text block": (turn(text("é" * (BIG // 2))), False),
    "text content": (turn(message={"content": "a" * BIG}), True),
    "tool input": (turn(tool_use("ls " * (BIG // 3))), True),
    "escaped result": (results(tool_result("Exit code 1 " + "\\" * (BIG // 2), True)), True),
    "result parts": (results(tool_result([text("😀" * (BIG // 12)), text("b")])), True),
    "noise": (results(tool_result("x"), noise=["y" * BIG]), True),
}


@needs_fold
@pytest.mark.parametrize("name", HUGE)
def test_a_five_megabyte_line(name: str) -> None:
    data = line(*HUGE[name])
    assert len(data) >= BIG
    assert check(data) == 1


@needs_fold
def test_wrong_arguments_raise_type_error() -> None:
    fold, fold_lines = fast().fold, fast().fold_lines
    meta: Meta = {"cwd": "/w"}
    events: list[Any] = []
    for args in [
        (_TURN.decode(), meta, events, False), (bytearray(_TURN), meta, events, False),
        (memoryview(_TURN), meta, events, False), (None, meta, events, False),
        (_TURN, [], events, False), (_TURN, None, events, False), (_TURN, meta, (), False),
        (_TURN, meta, {}, False), (_TURN, meta, events), (_TURN, meta, events, False, 1), (),
    ]:  # fmt: skip
        with pytest.raises(TypeError):
            fold(*args)
    with pytest.raises(TypeError):
        fold(line=_TURN, meta=meta, events=events, sidechains=False)
    state = FileState(dict(meta))
    for args in [
        (_TURN.decode(), 0, 1, state, False), (bytearray(_TURN), 0, 1, state, False),
        (_TURN, "0", 1, state, False), (_TURN, 0, 1.5, state, False), (_TURN, 0, 1, state),
        (_TURN, 0, 1, FileState(meta=[]), False), (_TURN, 0, 1, FileState(events=()), False),
    ]:  # fmt: skip
        with pytest.raises(TypeError):
            fold_lines(*args)
    for start, end in [(-1, 1), (0, len(_TURN) + 1), (2, 1)]:
        with pytest.raises(ValueError):
            fold_lines(_TURN, start, end, state, False)
    with pytest.raises(AttributeError):
        fold_lines(_TURN, 0, 1, object(), False)
    assert meta == {"cwd": "/w"} and events == [] and state == FileState(dict(meta))


@needs_fold
def test_a_failing_sidechains_flag_changes_nothing() -> None:
    meta: Meta = {}
    events: list[Any] = []
    with pytest.raises(ZeroDivisionError):
        fast().fold(_TURN, meta, events, _Unsure())
    with pytest.raises(ZeroDivisionError):
        fast().fold_lines(_TURN, 0, len(_TURN), FileState(meta, events), _Unsure())
    assert meta == {} and events == []


@needs_fold
def test_fold_lines_passes_over_empty_lines_and_stops_at_a_declined_one() -> None:
    declined = DECLINED["a text block from the user"]
    side = line(turn(text("x"), isSidechain=True))
    data = b"\n\n" + _TURN + b"\n" + side + b"\n\n" + declined + b"\n" + _RESULT
    state = FileState()
    at = fast().fold_lines(data, 0, len(data), state, False)
    start = data.index(declined)
    assert at == (start + len(declined) + 1, start, start + len(declined), 1)
    assert [event[0] for event in state.events] == ["assistant"]
    rest = fast().fold_lines(data, at[0], len(data), state, False)
    assert rest == (len(data), -1, -1, 0)  # the last line needs no newline
    assert [event[0] for event in state.events] == ["assistant", "result"]
    assert fast().fold_lines(data, 5, 5, state, False) == (5, -1, -1, 0)


_SINGLETONS = (None, True, False, "assistant", "call", "result", "interrupt", "user",
               "session_id", "cwd", "git_branch", "model", "engine")  # fmt: skip
_PROMPTS = [line(prompt(content)) for content in recs.PROMPT_TEXTS]


@needs_fold
def test_no_reference_or_memory_leaks(handler: Any) -> None:
    """Many folds, declines and errors leave no reference and no memory behind."""
    samples = [_TURN, _RESULT, *TAKEN_LINES, *DECLINED.values(), *KEPT.values(), b"{", b""]
    samples += _PROMPTS
    failing = _raising(ValueError), _raising(KeyboardInterrupt), lambda *args: (None, 0, 1)
    data = b"\n".join(samples)

    def churn(times: int) -> None:
        for _ in range(times):
            for sample in samples:
                for sidechains in (False, True):
                    fast().fold(sample, {"session_id": ""}, [], sidechains)
            at, state = 0, FileState()
            while at < len(data):
                at = fast().fold_lines(data, at, len(data), state, False)[0]
            with pytest.raises(ZeroDivisionError):
                fast().fold(sample, {}, [], _Unsure())
            with pytest.raises(TypeError):
                fast().fold(sample, {}, None, False)
            for function in failing:
                fast().set_prompt(function)
                with contextlib.suppress(KeyboardInterrupt, TypeError):
                    fast().fold(_PROMPTS[0], {}, [], False)
            fast().set_prompt(ORIGINAL)

    def counts() -> list[int]:
        gc.collect()
        return [sys.getrefcount(item) for item in _SINGLETONS]

    churn(20)
    before = counts()
    churn(200)
    assert counts() == before
    tracemalloc.start()
    try:
        churn(20)
        first = tracemalloc.get_traced_memory()[0]
        churn(200)
        grown = tracemalloc.get_traced_memory()[0] - first
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, f"{grown} bytes kept by 200 rounds"
