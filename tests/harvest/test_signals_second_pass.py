"""Issue 13's second pass on ``signals.detect`` CPU gives the results of the code before it.

A frozen copy of that code (``head_*`` below: ``classify`` with its plain-text branch, ``_words``,
``_retry_of``, ``detect``) is compared with the module on generated and fixed sessions and texts,
and on every session of a small ``bench_harvest`` corpus. The new code's shortcuts are checked
against the patterns themselves: the hint chains of ``_kind`` are read back from its source, the
start parts are shown to imply their hints, and the lowercased foreign patterns and the word byte
table are checked character by character.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.bench_harvest import PROJECT, generate
from skillopt_sleep.harvest import _reading, signals
from skillopt_sleep.harvest._harvest import HarvestRun
from skillopt_sleep.harvest._index import HarvestIndex
from skillopt_sleep.records import SignalKind
from tests.harvest.test_signals_equivalence import (
    _ALTERNATIVES,
    _CASES,
    GAP,
    _ascii_folds,
    _fixture_strings,
    _hinted,
    _request_set_texts,
    _test_suite_strings,
    _texts,
    ascii_readings,
    decides_as,
    hint_chains,
    language,
    prefilter_hints,
)

# ------------------------------------------------------- the code before this pass, frozen

_HEAD_FOREIGN_START = re.compile(rf"^\W*(?:{signals.FOREIGN_CORRECTION_START})", re.IGNORECASE)
_HEAD_FOREIGN_ANY = re.compile(signals.FOREIGN_CORRECTION_ANY, re.IGNORECASE)
_HEAD_FOREIGN_APPROVAL = re.compile(rf"^\W*(?:{signals.FOREIGN_APPROVAL})", re.IGNORECASE)
_HEAD_FOREIGN_ASCII_HINTS = ("noch", "marche", "fonctionne", "funciona", "fallando", "falhando")
_HEAD_CORRECTION_ANY_HINTS = (
    "wrong", "incorrect", "not right", "not what", "still ", "t work", "t compile", "t pass",
    "t fix", "broke", "missed", "forgot", "ignored", "try again",
)  # fmt: skip
_HEAD_APPROVAL_ANY_HINTS = ("works", "worked", "fixed it", "looks good", "well done", "good job")
_HEAD_CORRECTION_HINTS = (
    "no", "wrong", "not", "n't", "incorrect", "still", "undo", "revert", "you", "again", "broke",
)  # fmt: skip
_HEAD_APPROVAL_HINTS = (
    "thank", "thx", "ty", "perfect", "great", "excellent", "awesome", "nice", "lgtm", "good",
    "work", "fixed",
)  # fmt: skip
_HEAD_CORRECTION_START_I = re.compile(signals._CORRECTION_START, re.IGNORECASE)
_HEAD_CORRECTION_ANY_I = re.compile(signals._CORRECTION_ANY, re.IGNORECASE)
_HEAD_APPROVAL_START_I = re.compile(signals._APPROVAL_START, re.IGNORECASE)
_HEAD_APPROVAL_ANY_I = re.compile(signals._APPROVAL_ANY, re.IGNORECASE)
_HEAD_CORRECTION_START_LOW = re.compile(signals._CORRECTION_START)
_HEAD_CORRECTION_ANY_LOW = re.compile(signals._CORRECTION_ANY)
_HEAD_APPROVAL_START_LOW = re.compile(signals._APPROVAL_START)
_HEAD_APPROVAL_ANY_LOW = re.compile(signals._APPROVAL_ANY)
_HEAD_FOLDED = "".join(
    sorted(
        set(
            signals._CORRECTION_START
            + signals._CORRECTION_ANY
            + signals._APPROVAL_START
            + signals._APPROVAL_ANY
            + signals.FOREIGN_CORRECTION_ANY
        )
    )
)
_HEAD_NOT_PLAIN = re.compile(rf"[^\x00-\x7f](?<=(?i:[{re.escape(_HEAD_FOLDED)}]))")
_HEAD_WORD = re.compile(r"[\w.:/-]+")
_HEAD_WORD_ASCII = re.compile(r"[0-9A-Za-z_.:/-]+")
_HEAD_NOSPACE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3005\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]{2,}"
)


def head_words(text: str) -> frozenset[str]:
    low = text.lower()
    if low.isascii():
        return frozenset(_HEAD_WORD_ASCII.findall(low))
    words = _HEAD_WORD.findall(low)
    bigrams = [run[i : i + 2] for run in _HEAD_NOSPACE.findall(low) for i in range(len(run) - 1)]
    return frozenset([*(_HEAD_NOSPACE.sub(" ", w).strip() for w in words), *bigrams]) - {""}


def head_retry_of(
    words: frozenset[str], requests: Iterable[tuple[int, frozenset[str], int]]
) -> int | None:
    size = len(words)
    for prior_index, prior, prior_size in requests:
        small, large = (prior_size, size) if prior_size < size else (size, prior_size)
        if small < 3 or small < 0.6 * large or words.isdisjoint(prior):
            continue
        shared = len(words & prior)
        if shared / (size + prior_size - shared) >= 0.6:
            return prior_index
    return None


def head_classify(text: str) -> SignalKind | None:
    head = text[:600]
    low = head.lower()
    if head.isascii() or not _HEAD_NOT_PLAIN.search(head):
        return head_classify_plain(head, low)
    if any(h in low for h in _HEAD_CORRECTION_HINTS) and (
        _HEAD_CORRECTION_START_I.match(head) or _HEAD_CORRECTION_ANY_I.search(head)
    ):
        return SignalKind.CORRECTION
    if _HEAD_FOREIGN_START.match(head) or _HEAD_FOREIGN_ANY.search(head):
        return SignalKind.CORRECTION
    if any(h in low for h in _HEAD_APPROVAL_HINTS) and (
        _HEAD_APPROVAL_START_I.match(head) or _HEAD_APPROVAL_ANY_I.search(head)
    ):
        return SignalKind.APPROVAL
    if _HEAD_FOREIGN_APPROVAL.match(head):
        return SignalKind.APPROVAL
    return None


def head_classify_plain(head: str, low: str) -> SignalKind | None:
    if any(h in low for h in _HEAD_CORRECTION_HINTS) and (
        _HEAD_CORRECTION_START_LOW.match(low)
        or (
            any(h in low for h in _HEAD_CORRECTION_ANY_HINTS)
            and _HEAD_CORRECTION_ANY_LOW.search(low)
        )
    ):
        return SignalKind.CORRECTION
    if _HEAD_FOREIGN_START.match(head) or (
        any(h in low for h in _HEAD_FOREIGN_ASCII_HINTS) and _HEAD_FOREIGN_ANY.search(head)
    ):
        return SignalKind.CORRECTION
    if any(h in low for h in _HEAD_APPROVAL_HINTS) and (
        _HEAD_APPROVAL_START_LOW.match(low)
        or (any(h in low for h in _HEAD_APPROVAL_ANY_HINTS) and _HEAD_APPROVAL_ANY_LOW.search(low))
    ):
        return SignalKind.APPROVAL
    if _HEAD_FOREIGN_APPROVAL.match(head):
        return SignalKind.APPROVAL
    return None


def head_detect(steps: Sequence[Any], interrupted: Iterable[int] = ()) -> tuple[Any, ...]:
    found: list[tuple[str, int, str]] = []
    requests: deque[tuple[int, frozenset[str], int]] = deque(maxlen=100)
    last_user: int | None = None
    for index, (role, text, _ts, calls) in enumerate(steps):
        if role == "assistant":
            if last_user is not None:
                for call in calls:
                    if call[4]:
                        found.append(("tool_error", last_user, f"{call[1]}: {call[3]}"[:160]))
            continue
        kind = head_classify(text) if last_user is not None else None
        excerpt = text[:160]
        if kind is not None and last_user is not None:
            found.append((kind.value, last_user, excerpt))
        if kind is None:
            words = head_words(text)
            if len(words) >= 3:
                prior_index = head_retry_of(words, reversed(requests))
                if prior_index is not None:
                    found.append(("retry", prior_index, excerpt))
            requests.append((index, words, len(words)))
        last_user = index
    for index in sorted(set(interrupted)):
        if 0 <= index < len(steps) and steps[index][0] == "user":
            found.append(("interrupted", index, steps[index][1][:160]))
    return tuple(found)


def _same(text: str) -> None:
    assert signals.classify(text) == head_classify(text), text
    assert signals._words(text) == head_words(text), text


# ---------------------------------------------------------- the shortcuts, from the patterns


def test_the_hint_chains_hold_the_old_hints() -> None:
    """The chains that decide find a hint where the tuples before this pass did; the others (the
    equivalence tests prove them from the patterns) where the old prefilter tuples did, or more."""
    chains = hint_chains()
    assert decides_as(
        next(c for c in chains["_CORRECTION_ANY_LOW"] if "no" in c), _HEAD_CORRECTION_HINTS
    )
    assert decides_as(
        next(c for c in chains["_APPROVAL_ANY_LOW"] if "ty" in c), _HEAD_APPROVAL_HINTS
    )
    for name, old in (
        ("_CORRECTION_ANY_LOW", _HEAD_CORRECTION_ANY_HINTS),
        ("_APPROVAL_ANY_LOW", _HEAD_APPROVAL_ANY_HINTS),
        ("_FOREIGN_ANY", _HEAD_FOREIGN_ASCII_HINTS),
    ):
        new = prefilter_hints()[name]
        assert all(any(c in h for c in new) for h in old), name


@pytest.mark.parametrize(
    ("pattern", "hints"),
    [
        (signals._CORRECTION_START, _HEAD_CORRECTION_HINTS),
        (signals._APPROVAL_START, _HEAD_APPROVAL_HINTS),
    ],
    ids=["correction", "approval"],
)
def test_each_match_of_a_start_part_holds_a_hint(pattern: str, hints: tuple[str, ...]) -> None:
    """So the start part may be matched before the hints are looked for."""
    matches = language(pattern)
    assert matches and all(m.isascii() for m in matches)
    assert not [m for m in matches if not _hinted(m, hints)]


def test_the_lowercased_foreign_start_patterns_read_ascii_text_alike() -> None:
    """Their letters are all lowercase, their escapes case-blind, and no character of theirs
    matches an ASCII character other than its own under IGNORECASE."""
    pairs = [
        (signals._FOREIGN_START_LOW, signals._FOREIGN_START, signals.FOREIGN_CORRECTION_START),
        (signals._FOREIGN_APPROVAL_LOW, signals._FOREIGN_APPROVAL, signals.FOREIGN_APPROVAL),
    ]
    for low, original, part in pairs:
        assert low.pattern == original.pattern and not low.flags & re.IGNORECASE
        assert original.flags & re.IGNORECASE
        bare = re.sub(r"\\.", "", low.pattern)
        assert bare == bare.lower()
        assert set(re.findall(r"\\(.)", low.pattern)) <= {"W", "s", "b"}
        for c in set(bare):
            assert _ascii_folds(c) <= ({c.lower()} if c.isascii() else set()), c
        for m in language(part):  # every alternative, every ASCII way to write it
            for reading in ascii_readings(m):
                text = reading.replace(GAP, " ")
                for case in (text, text.upper(), text.title(), f"... {text.upper()}!"):
                    assert bool(low.match(case.lower())) == bool(original.match(case)), case


def test_the_word_byte_table_is_the_ascii_word_pattern() -> None:
    for c in map(chr, range(128)):
        word = bool(_HEAD_WORD_ASCII.fullmatch(c))
        assert signals._WORD_BYTES[ord(c)] == (ord(c.lower()) if word else 32), c
    everything = "".join(map(chr, range(128)))
    assert signals._words(everything * 2) == head_words(everything * 2)


# ------------------------------------------------------------------------------ texts

_LONG = [
    "x" * 600,
    "x" * 599 + " no, wrong",
    "no, wrong " + "x" * 700,
    "please fix it " * 50 + "still failing",
    "lorem ipsum " * 49 + "that's wrong",  # the phrase crosses character 600
    "lorem ipsum " * 49 + "thanks, it works",
    "Почини тест " * 60 + "не работает",
    "“" + "fix the export flag ’n test " * 30 + "” — still fails…",
]
_EDGE = [
    "", " ", "\n", "no", "No.", "NO!", "nope", "ty", "Ty", "thx!", "it doesnt work",
    "it doesn't work", "that's not what i asked", "still", "still failing", "you broke it",
    "well done", "Well done, thanks", "good job", "works", "it worked", "nein", "Nein, das ist falsch",
    "nochmal", "Noch einmal bitte", "ça marche", "ca marche", "Ca marche!", "merci", "Danke, funktioniert",
    "funciona", "Funciona ahora!", "no funciona", "sigue fallando", "не работает", "НЕТ.", "нет ли способа",
    "还是不行", "谢谢", "ありがとう", "违う", "まだ失敗", "다시 해", "감사합니다", "لا.", "شكرا",
    "לא עובד", "תודה", "फिर से", "धन्यवाद", "İs not working", "ſtill failing", "worKs now",
    "\u212aeep going", "fix \u212aelvin", "KELVIN \u212a", "ǅ", "ﬁx it", "café crème", "🙂 thanks",
]  # fmt: skip


@pytest.mark.parametrize("text", _EDGE + _LONG)
def test_edge_texts_classify_alike(text: str) -> None:
    _same(text)
    _same(text.upper())
    _same(" " + text.title())


def test_the_fixture_and_request_texts_classify_alike() -> None:
    texts = [*_fixture_strings(), *_request_set_texts(), *_test_suite_strings()]
    assert len(texts) > 1000
    for text in texts:
        _same(text)


@pytest.mark.parametrize("case", range(len(_CASES)))
def test_every_alternative_in_every_case_and_place_classifies_alike(case: int) -> None:
    recase = _CASES[case]
    for alternative in _ALTERNATIVES:
        phrase = recase(alternative)
        for text in (phrase, f"... {phrase}!", f"ok, {phrase}", "x" * 590 + " " + phrase,
                     "请修复 " + phrase, "“ok” — " + phrase):  # fmt: skip
            _same(text)


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_generated_text_classifies_alike(text: str) -> None:
    _same(text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=700))
def test_generated_ascii_text_classifies_alike(text: str) -> None:
    _same(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=700))
def test_generated_unicode_text_classifies_alike(text: str) -> None:
    _same(text)


# --------------------------------------------------------------------------- sessions

_WORDS = ["fix", "the", "login", "test", "please", "again", "auth", "now", "修复", "测试", "тест", "\u212aeep"]  # fmt: skip
_USER_TEXT = st.one_of(
    _texts(),
    st.lists(st.sampled_from(_WORDS), max_size=7).map(" ".join),
    st.sampled_from(_EDGE + _LONG),
    st.text(max_size=30),
)
_CALL = st.tuples(
    st.just("c1"), st.sampled_from(["Bash", "Read", ""]), st.just("{}"),
    st.one_of(st.text(max_size=30), st.sampled_from(["", "é" * 400, "boom\n" * 100])),
    st.booleans(),
)  # fmt: skip
_STEP = st.one_of(
    st.tuples(st.sampled_from(["user", "user", "system"]), _USER_TEXT, st.none(), st.just(())),
    st.tuples(st.just("assistant"), st.text(max_size=20), st.none(), st.lists(_CALL, max_size=3).map(tuple)),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_STEP, max_size=16),
    st.lists(st.integers(-3, 20), max_size=5),
    st.sampled_from([list, tuple, set, iter]),
)
def test_generated_sessions_get_the_same_signals(
    steps: list[Any], interrupted: list[int], kind: Any
) -> None:
    assert signals.detect(steps, kind(interrupted)) == head_detect(steps, kind(interrupted))


_FIXED_SESSIONS: list[tuple[list[Any], list[int]]] = [
    ([], []),
    ([], [0, -1]),
    ([("assistant", "hi", None, (("c", "Bash", "{}", "boom", True),))], [0]),
    ([("assistant", "a", None, ()), ("assistant", "b", None, (("c", "Bash", "{}", "x", True),))], []),
    ([("user", "", None, ())], [0, 1, -1]),
    ([("user", "", None, ()), ("user", "", None, ()), ("user", "no", None, ())], [2, 2, 1]),
    ([("user", "fix the login test", None, ())], [5]),
    ([("user", "fix the login test", None, ()), ("user", "fix the login test", None, ())], []),
    ([("assistant", "x", None, (("c", "Bash", "{}", "boom", True),)),
      ("user", "fix the login test now", None, ()),
      ("assistant", "x", None, (("c", "Read", "{}", "é" * 500, True), ("c", "Bash", "{}", "ok", False))),
      ("user", "no, still failing", None, ()),
      ("user", "please fix the login test now", None, ()),
      ("system", "fix the login test now please", None, ())], [1, 3, 5, 99, -1]),
    ([("user", "修复登录测试 tests/test_auth.py", None, ()),
      ("user", "登录测试又失败了，请修复 tests/test_auth.py", None, ()),
      ("user", "登录测试又失败了，请修复一下 tests/test_auth.py", None, ())], [0]),
    ([("user", "x" * 700, None, ()), ("user", "x" * 700 + " y", None, ())], []),
]  # fmt: skip


@pytest.mark.parametrize("number", range(len(_FIXED_SESSIONS)))
def test_fixed_sessions_get_the_same_signals(number: int) -> None:
    steps, interrupted = _FIXED_SESSIONS[number]
    assert signals.detect(steps, interrupted) == head_detect(steps, interrupted)
    assert signals.detect(steps) == head_detect(steps)


@pytest.mark.parametrize("seed", range(6))
def test_long_sessions_of_near_repeats_get_the_same_signals(seed: int) -> None:
    """Past ``RETRY_LOOKBACK`` requests, feedback mixed in, sizes on the similarity bounds."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(12)] + ["修复", "测试"]
    feedback = ["no, still failing", "thanks!", "Danke", "ok", ""]
    steps: list[Any] = []
    for _ in range(rng.choice([150, 400])):
        if rng.random() < 0.15:
            text = rng.choice(feedback)
        else:
            text = " ".join(rng.sample(vocabulary, rng.choice([1, 2, 3, 3, 4, 5, 6, 8, 10])))
        steps.append(("user", text, None, ()))
        if rng.random() < 0.3:
            steps.append(("assistant", "ok", None, (("c", "Bash", "{}", "boom", True),)))
    interrupted = rng.sample(range(-5, len(steps) + 5), 12)
    found = signals.detect(steps, interrupted)
    assert found == head_detect(steps, interrupted)
    assert sum(1 for s in found if s[0] == "retry") > 20


def test_every_session_of_a_bench_harvest_corpus_gets_the_same_signals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark's own corpus (Claude Code and Codex), harvested in this process."""
    generate(tmp_path / "home", 40)
    captured: list[tuple[list[Any], tuple[int, ...]]] = []
    real = signals.detect

    def spy(steps: Sequence[Any], interrupted: Iterable[int] = ()) -> tuple[Any, ...]:
        kept = tuple(interrupted)
        captured.append((list(steps), kept))
        return real(steps, kept)

    monkeypatch.setattr(signals, "detect", spy)
    monkeypatch.setattr(_reading, "PARALLEL_MIN_FILES", 10**9)
    homes = {h: tmp_path / "home" / f".{h}" for h in ("claude", "codex")}
    index = HarvestIndex.for_state_dir(tmp_path / "state")
    HarvestRun(PROJECT, tuple(homes), "3650d", index, homes=homes, record=False).drain()
    assert len(captured) == 80
    for steps, interrupted in captured:
        assert real(steps, interrupted) == head_detect(steps, interrupted)
