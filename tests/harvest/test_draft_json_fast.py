"""The faster ``draft_json`` renders every Draft as the code before it did, and as the records do.

``before_draft_json`` below is a frozen copy of the code before (``dict(zip(...))`` per call,
``to_utc`` per timestamp, one orjson call with ``OPT_NON_STR_KEYS``). Generated Drafts hold
timestamps across ``datetime``'s range, at its microsecond rounding edges and beyond it, text of
every kind of character (lone surrogates too), empty steps and calls, non-str values and keys
orjson's plain dict path refuses: each renders to the same bytes, or fails with the same error.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harvest._fixtures import WEBAPP
from skillopt_sleep.harvest import HarvestRun, open_index
from skillopt_sleep.harvest._build import Draft
from skillopt_sleep.harvest._events import to_utc
from skillopt_sleep.harvest._output import draft_json, session_json
from skillopt_sleep.records import SignalKind

# ------------------------------------------------------------------ the code before

_BEFORE_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS
_BEFORE_FIELDS = ("call_id", "name", "input_excerpt", "result_excerpt", "is_error", "exit_code")


def before_draft_json(made: Any) -> bytes:
    fields = _BEFORE_FIELDS
    turns = [
        {
            "role": role,
            "text": text,
            "timestamp": None if ts is None else to_utc(ts),
            "tool_calls": [dict(zip(fields, call, strict=True)) for call in calls],
        }
        for role, text, ts, calls in made.steps
    ]
    document = {
        "harness": made.harness,
        "session_id": made.session_id,
        "project": made.project,
        "cwd": made.cwd,
        "started_at": to_utc(made.started),
        "ended_at": to_utc(made.ended),
        "turns": turns,
        "signals": [
            {"kind": kind, "turn_index": index, "excerpt": excerpt}
            for kind, index, excerpt in made.signals
        ],
        "model": made.model,
        "git_branch": made.git_branch,
        "source_files": made.source_files,
        "forked_from": made.forked_from,
    }
    return orjson.dumps(document, option=_BEFORE_OPTIONS)


# ------------------------------------------------------------------ helpers


def _outcome(render: Callable[[Any], bytes], made: Any) -> bytes | type[BaseException]:
    """The bytes, or the type of the error (messages of a malformed call differ: zip's, unpacking's)."""
    try:
        return render(made)
    except Exception as exc:
        return type(exc)


def _records(made: Any) -> bytes:
    return session_json(made.session())


def _draft(ts: object = 1_700_000_000.5, **fields: Any) -> Draft:
    values: dict[str, Any] = {
        "harness": "claude",
        "session_id": "s1",
        "project": "/p",
        "cwd": "/p",
        "started": ts,
        "ended": ts,
        "steps": (
            ("user", "hi", ts, ()),
            ("assistant", "ok", ts, (("c", "Bash", "ls", "", False, 0),)),
        ),
        "signals": (("approval", 0, "thanks"),),
        "model": "m",
        "git_branch": "main",
        "source_files": ("/a.jsonl",),
    }
    values.update(fields)
    return Draft(**values)


# datetime's range, as UTC epoch seconds: 0001-01-01T00:00:00 .. 9999-12-31T23:59:59.999999
_FIRST, _LAST = -62_135_596_800, 253_402_300_799
# the microsecond rounding edges (round-half-even of the fraction, carried into the next second)
_FRACTIONS = (0.0, 0.4999995, 0.5000005, 0.0000005, 0.0000015, 0.0000025, 0.9999995, 0.9999994999,
              0.9999999, 0.1234565, 0.5, 0.999999, 0.000001)  # fmt: skip
_EDGES: tuple[object, ...] = (
    0, 0.0, -0.0, -1, -0.5, -0.4999995, -0.9999995, -1.0000005, 1e-7, 5e-7, 1.5e-6, 2.5e-6,
    946_684_800.0, 4_102_444_800.0, 1_700_000_000.4999995, 1_700_000_000.9999995,
    1_700_000_059.9999995, 1_700_003_599.9999995, 1_703_980_799.9999995,  # into a minute, an hour, a year
    float(_FIRST), _FIRST - 1, float(_LAST), _LAST + 0.999999, _LAST + 0.9999995, _LAST + 1,
    1e15, 1e20, -1e20, 2**63, -(2**63), 10**30, float("inf"), float("-inf"), float("nan"),
    True, False, "1700000000", b"1", Decimal("1.5"), [1], None,
)  # fmt: skip


class _Seconds(float):
    """A float subclass (``fromtimestamp`` reads it as a float)."""


class _Key(str):
    """A str subclass: a key orjson's plain dict path refuses."""


# ------------------------------------------------------------------ strategies

_clean_texts = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        ["", "\x00", "a\x00b", "é\u2028\u202e\U0001f600", '"\\\n\t', "\x1b[31m\x7f\x85"]
    ),
)
_texts = st.one_of(
    _clean_texts,
    st.text(st.characters(exclude_categories=()), max_size=8),  # lone surrogates too
    st.just("\ud800"),
)
_valid_seconds = st.one_of(
    st.floats(min_value=_FIRST, max_value=_LAST + 0.999999),
    st.builds(lambda s, f: s + f, st.integers(_FIRST, _LAST - 1), st.sampled_from(_FRACTIONS)),
    st.builds(
        lambda s, k: s + (k + 0.5) / 1e6,  # half a microsecond: the ties
        st.integers(-(10**10), 10**10),
        st.integers(0, 999_998),
    ),
    st.integers(_FIRST, _LAST),
)
_seconds = st.one_of(_valid_seconds, st.sampled_from(_EDGES), st.floats())


def _values(texts: st.SearchStrategy[str], ints: st.SearchStrategy[int]) -> st.SearchStrategy[Any]:
    """Non-str values a Draft may carry, nested, with keys orjson's plain dict path refuses."""
    keys = st.one_of(texts, st.integers(-5, 5), st.none(), st.booleans(), st.builds(_Key, texts))
    return st.recursive(
        st.one_of(st.none(), st.booleans(), ints, st.floats(), texts, st.builds(_Key, texts)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(keys, inner, max_size=3),
        ),
        max_leaves=6,
    )


def _drafts(
    texts: st.SearchStrategy[Any],
    seconds: st.SearchStrategy[Any],
    calls: st.SearchStrategy[Any],
    kinds: st.SearchStrategy[Any],
) -> st.SearchStrategy[Draft]:
    steps = st.tuples(
        st.sampled_from(["user", "assistant"]),
        texts,
        st.one_of(st.none(), seconds),
        st.lists(calls, max_size=3).map(tuple),
    )
    return st.builds(
        Draft,
        harness=st.one_of(st.sampled_from(["claude", "codex", "copilot"]), texts),
        session_id=texts,
        project=texts,
        cwd=texts,
        started=seconds,
        ended=seconds,
        steps=st.lists(steps, max_size=4).map(tuple),
        signals=st.lists(st.tuples(kinds, st.integers(-1, 9), texts), max_size=3).map(tuple),
        model=texts,
        git_branch=texts,
        source_files=st.lists(texts, max_size=3).map(tuple),
        forked_from=texts,
    )


def _calls(texts: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[Any, ...]]:
    exits = st.one_of(st.none(), st.integers(-300, 300))
    return st.tuples(texts, texts, texts, texts, st.booleans(), exits)


_kinds = st.sampled_from([k.value for k in SignalKind])
# what ``Draft.session`` builds: mostly renderable, then with any text and any timestamp
_sessions = _drafts(_clean_texts, _valid_seconds, _calls(_clean_texts), _kinds)
_rough = _drafts(_texts, _seconds, _calls(_texts), _kinds)


def _odd_drafts(
    texts: st.SearchStrategy[str], seconds: st.SearchStrategy[Any], ints: st.SearchStrategy[int]
) -> st.SearchStrategy[Draft]:
    values = _values(texts, ints)
    odd_calls = st.tuples(values, values, values, values, values, values)
    return _drafts(st.one_of(texts, values), seconds, st.one_of(_calls(texts), odd_calls), values)


# non-str values: mostly renderable, then with anything (ints beyond 64 bits too)
_odd = _odd_drafts(_clean_texts, _valid_seconds, st.integers(-(2**63), 2**64 - 1))
_anything = _odd_drafts(_texts, _seconds, st.integers())

# ------------------------------------------------------------------ tests


@settings(max_examples=600, deadline=None)
@given(st.one_of(_sessions, _rough))
def test_plain_drafts_render_as_before_and_as_the_records(made: Draft) -> None:
    new = _outcome(draft_json, made)
    assert new == _outcome(before_draft_json, made)
    assert new == _outcome(_records, made)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_odd, _anything))
def test_any_draft_renders_as_before(made: Draft) -> None:
    assert _outcome(draft_json, made) == _outcome(before_draft_json, made)


@settings(max_examples=400, deadline=None)
@given(_seconds, st.one_of(st.none(), _seconds))
def test_every_timestamp_renders_as_before(started: object, turn: object) -> None:
    made = _draft(turn, started=started, ended=started)
    new = _outcome(draft_json, made)
    assert new == _outcome(before_draft_json, made) == _outcome(_records, made)


@pytest.mark.parametrize("ts", [*_EDGES, _Seconds(1.5), _Seconds(1_700_000_000.9999995)])
def test_edge_timestamps(ts: object) -> None:
    for made in (_draft(ts), _draft(started=ts), _draft(ended=ts)):
        new = _outcome(draft_json, made)
        assert new == _outcome(before_draft_json, made) == _outcome(_records, made)


@pytest.mark.parametrize("fraction", _FRACTIONS)
@pytest.mark.parametrize("second", [0, 1, 1_700_000_000, 1_700_000_059, 4_102_444_799, _LAST - 1])
def test_rounding_edges_print_as_the_datetime(second: int, fraction: float) -> None:
    ts = second + fraction
    rendered = orjson.loads(draft_json(_draft(ts)))
    expected = orjson.dumps(datetime.fromtimestamp(ts, timezone.utc), option=orjson.OPT_UTC_Z)
    assert rendered["started_at"] == rendered["turns"][0]["timestamp"] == orjson.loads(expected)
    assert draft_json(_draft(ts)) == before_draft_json(_draft(ts))


def test_a_timestamp_too_far_fails_as_before() -> None:
    for ts, error in ((1e20, OverflowError), (1e15, ValueError), (float("nan"), ValueError)):
        with pytest.raises(error):
            draft_json(_draft(ts))
        with pytest.raises(error):
            before_draft_json(_draft(ts))


def test_keys_the_plain_path_refuses_render_as_before() -> None:
    for odd in ({1: "x"}, {None: [{2.5: True}]}, {_Key("k"): 1}, ({"a": {False: 0}},)):
        made = _draft(model=odd, source_files=(odd,))
        assert draft_json(made) == before_draft_json(made) == _records(made)


def test_text_orjson_refuses_fails_with_the_same_error() -> None:
    made = _draft(steps=(("user", "a\ud800b", 1.0, ()),))
    with pytest.raises(orjson.JSONEncodeError) as new:
        draft_json(made)
    with pytest.raises(orjson.JSONEncodeError) as before:
        before_draft_json(made)
    assert str(new.value) == str(before.value)
    assert new.value.__context__ is None  # the first attempt's error is not chained


def test_empty_and_odd_steps() -> None:
    for steps in ((), (("user", "", None, ()),), (("assistant", "x", 0.0, ()),)):
        made = _draft(steps=steps)
        assert draft_json(made) == before_draft_json(made) == _records(made)
    call = ("c", "Bash", "", "", None, None)  # no exit code, no error flag
    made = _draft(steps=(("assistant", "", 2.0, (call,)),))
    assert draft_json(made) == before_draft_json(made) == _records(made)
    assert b'"exit_code": null' in draft_json(made)
    for short_or_long in (("c", "n", "i", "r", False), ("c", "n", "i", "r", False, 0, 1)):
        made = _draft(steps=(("assistant", "", 2.0, (short_or_long,)),))
        with pytest.raises(ValueError):
            draft_json(made)
        with pytest.raises(ValueError):
            before_draft_json(made)


def test_no_calls_read_as_the_records_read_them() -> None:
    """A step whose calls are None renders as ``Draft.session`` reads it: no calls (the code
    before iterated None and failed)."""
    made = _draft(steps=(("user", "hi", 1.0, None),))
    assert draft_json(made) == _records(made)
    assert b'"tool_calls": []' in draft_json(made)


def test_fixture_drafts_render_as_before(homes: dict[str, Path]) -> None:
    run = HarvestRun(WEBAPP, None, None, open_index(WEBAPP, ":memory:"), homes=homes)
    drafts = [made for made, _ in run._drafts()]
    assert drafts
    assert [draft_json(m) for m in drafts] == [before_draft_json(m) for m in drafts]
