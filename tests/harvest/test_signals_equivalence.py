"""Issue 13's faster ``signals.classify`` and ``detect`` give the results of the code before it.

A frozen copy of that code (below, ``before_*``; ``benchmarks/bench_signals.py`` times it) is
compared with the module on every turn of the transcript fixtures, the request sets, the test
suite's own strings and generated text. The prefilters the fast path relies on (the hint chains
of ``signals._kind``, read from its source) are derived here from the patterns: every string a
pattern can match is enumerated from its parse tree.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import random
import re
import sys
import textwrap
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_sleep.harvest import harvest, signals
from skillopt_sleep.records import SignalKind

if sys.version_info >= (3, 11):
    from re import _constants as sre
    from re import _parser as sre_parse
else:  # pragma: no cover
    import sre_constants as sre
    import sre_parse

TESTS = Path(__file__).resolve().parents[1]
TRANSCRIPTS = [
    TESTS / "data" / "transcripts",
    TESTS / "data" / "transcripts_current",
    TESTS / "harvest" / "fixtures",
    Path("/work/shared/fixtures/transcripts"),  # the team's shared copy, where present
]
PROJECTS = (
    "/home/dev/webapp",
    "/home/dev/reading",
    "/home/dev/projects/webapp",
    "/home/dev/projects/my proj é",
)
REQUEST_SETS = [TESTS / "data" / "requests.jsonl", TESTS / "data" / "i18n_requests.jsonl"]

# ------------------------------------------------------------------ the code before issue 13

_BEFORE_CORRECTION = re.compile(
    r"^\s*(?:no\b|nope\b|wrong\b|not quite\b|incorrect\b|actually,? no\b|that'?s not\b|undo\b|revert\b)"
    r"|\b(?:that'?s|this is|it'?s|you'?re) (?:wrong|incorrect|not right|not what)"
    r"|\bwrong (?:format|file|answer|output|approach|place|one)\b"
    r"|\bstill (?:fail|failing|fails|broken|wrong|crash|crashing|not work|doesn'?t work|errors?)"
    r"|\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not) (?:work|compile|pass|fix)"
    r"|\bnot what i (?:asked|wanted|meant)\b"
    r"|\byou (?:broke|missed|forgot|ignored)\b"
    r"|\b(?:try again|that broke)\b",
    re.IGNORECASE,
)
_BEFORE_APPROVAL = re.compile(
    r"^\s*(?:thanks|thank you|thx|ty|perfect|great|excellent|awesome|nice|lgtm|looks good|works)\b"
    r"|\b(?:that|it|this) (?:works|worked|fixed it)\b|\bworks (?:now|great|perfectly)\b"
    r"|\b(?:looks good|well done|good job)\b",
    re.IGNORECASE,
)
_BEFORE_FOREIGN_CORRECTION = re.compile(
    rf"^\W*(?:{signals.FOREIGN_CORRECTION_START})|{signals.FOREIGN_CORRECTION_ANY}", re.IGNORECASE
)
_BEFORE_FOREIGN_APPROVAL = re.compile(rf"^\W*(?:{signals.FOREIGN_APPROVAL})", re.IGNORECASE)
_BEFORE_WORD = re.compile(r"[\w.:/-]+")
_BEFORE_NOSPACE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3005\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]{2,}"
)
_BEFORE_CORRECTION_HINTS = (
    "no", "wrong", "not", "n't", "incorrect", "still", "undo", "revert", "you", "again", "broke",
)  # fmt: skip
_BEFORE_APPROVAL_HINTS = (
    "thank", "thx", "ty", "perfect", "great", "excellent", "awesome", "nice", "lgtm", "good",
    "work", "fixed",
)  # fmt: skip


def before_words(text: str) -> frozenset[str]:
    low = text.lower()
    words = _BEFORE_WORD.findall(low)
    if low.isascii():
        return frozenset(words)
    bigrams = [run[i : i + 2] for run in _BEFORE_NOSPACE.findall(low) for i in range(len(run) - 1)]
    return frozenset([*(_BEFORE_NOSPACE.sub(" ", w).strip() for w in words), *bigrams]) - {""}


def _before_similar(a: frozenset[str], b: frozenset[str]) -> bool:
    small, large = sorted((len(a), len(b)))
    if small < 3 or small < 0.6 * large:
        return False
    return len(a & b) / len(a | b) >= 0.6


def before_classify(text: str) -> SignalKind | None:
    head = text[:600]
    low = head.lower()
    if any(h in low for h in _BEFORE_CORRECTION_HINTS) and _BEFORE_CORRECTION.search(head):
        return SignalKind.CORRECTION
    if _BEFORE_FOREIGN_CORRECTION.search(head):
        return SignalKind.CORRECTION
    if any(h in low for h in _BEFORE_APPROVAL_HINTS) and _BEFORE_APPROVAL.search(head):
        return SignalKind.APPROVAL
    if _BEFORE_FOREIGN_APPROVAL.match(head):
        return SignalKind.APPROVAL
    return None


def before_detect(steps: Sequence[Any], interrupted: Iterable[int] = ()) -> tuple[Any, ...]:
    found: list[tuple[str, int, str]] = []
    requests: deque[tuple[int, frozenset[str]]] = deque(maxlen=100)
    last_user: int | None = None
    for index, (role, text, _ts, calls) in enumerate(steps):
        if role == "assistant":
            if last_user is not None:
                for call in calls:
                    if call[4]:
                        found.append(("tool_error", last_user, f"{call[1]}: {call[3]}"[:160]))
            continue
        kind = before_classify(text) if last_user is not None else None
        excerpt = text[:160]
        if kind is not None and last_user is not None:
            found.append((kind.value, last_user, excerpt))
        if kind is None:
            words = before_words(text)
            if len(words) >= 3:
                for prior_index, prior_words in reversed(requests):
                    if _before_similar(words, prior_words):
                        found.append(("retry", prior_index, excerpt))
                        break
            requests.append((index, words))
        last_user = index
    for index in sorted(set(interrupted)):
        if 0 <= index < len(steps) and steps[index][0] == "user":
            found.append(("interrupted", index, steps[index][1][:160]))
    return tuple(found)


# ------------------------------------------------------------ what a pattern can match

GAP = "\x00"  # any string at all (zero or more characters) in an enumerated match


def language(pattern: str) -> set[str]:
    """Every string ``pattern`` can match, a stretch it does not pin down written as ``GAP``.
    Zero-width assertions are dropped (a superset, which is what the proofs below need)."""
    return _sequence(sre_parse.parse(pattern, re.IGNORECASE))


def _sequence(items: Any) -> set[str]:  # a SubPattern: (op, argument) pairs
    found = {""}
    for op, av in items:
        found = {a + b for a in found for b in _item(op, av)}
    return found


def _item(op: Any, av: Any) -> set[str]:
    if op is sre.LITERAL:
        return {chr(av)}
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return {""}
    if op is sre.SUBPATTERN:
        return _sequence(av[-1])
    if op is sre.BRANCH:
        return set().union(*(_sequence(b) for b in av[1]))
    if op is sre.IN and all(o is sre.LITERAL for o, _ in av):
        return {chr(v) for _, v in av}
    if op in (sre.IN, sre.ANY, sre.NOT_LITERAL):
        return {GAP}
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        low, high, item = av
        if high == sre.MAXREPEAT:
            return {GAP}
        once = _sequence(item)
        return {"".join(p) for k in range(low, high + 1) for p in itertools.product(once, repeat=k)}
    raise AssertionError(f"cannot enumerate {op}")


@cache
def _ascii_folds(char: str) -> frozenset[str]:
    """The lowercased ASCII characters IGNORECASE lets ``char`` match (Kelvin sign, long s...)."""
    one = re.compile(re.escape(char), re.IGNORECASE)
    return frozenset(chr(c).lower() for c in range(128) if one.fullmatch(chr(c)))


def ascii_readings(match: str) -> set[str]:
    """The lowercased ASCII texts an enumerated ``match`` can be (none: it needs a non-ASCII
    character), ``GAP`` kept."""
    options = [{GAP} if c == GAP else _ascii_folds(c) for c in match]
    return {"".join(p) for p in itertools.product(*options)}


def _hinted(reading: str, hints: Sequence[str]) -> bool:
    """Whether a hint is in ``reading`` (outside its gaps): then in any text it matches in,
    lowercased, as ``str.lower`` maps character by character."""
    return any(h in stretch for stretch in reading.split(GAP) for h in hints)


def hint_chains() -> dict[str, list[tuple[str, ...]]]:
    """The ``or`` chains of ``in`` tests in ``signals._kind``'s source, by the name of the regex
    whose search they gate (the last operand of the ``and`` they are in)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(signals._kind)))
    found: dict[str, list[tuple[str, ...]]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)):
            continue
        *gates, last = node.values
        assert isinstance(last, ast.Call) and isinstance(last.func, ast.Attribute)
        assert last.func.attr == "search" and isinstance(last.func.value, ast.Name)
        chains = []
        for gate in gates:
            assert isinstance(gate, ast.BoolOp) and isinstance(gate.op, ast.Or)
            hints = []
            for test in gate.values:
                assert isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In)
                assert isinstance(test.left, ast.Constant) and isinstance(test.left.value, str)
                assert [c.id for c in test.comparators if isinstance(c, ast.Name)] == ["low"]
                hints.append(test.left.value)
            chains.append(tuple(hints))
        found[last.func.value.id] = chains
    return found


def decides_as(chain: Sequence[str], hints: Sequence[str]) -> bool:
    """Whether ``chain`` finds a hint in exactly the texts ``hints`` does: each of its entries is
    one of them, and each of them holds one of its entries."""
    return set(chain) <= set(hints) and all(any(c in h for c in chain) for h in hints)


# The hint tuples that decide (no hint: no such kind, as before issue 13), by searched regex
DECIDING = {
    "_CORRECTION_ANY_LOW": _BEFORE_CORRECTION_HINTS,
    "_APPROVAL_ANY_LOW": _BEFORE_APPROVAL_HINTS,
}


def prefilter_hints() -> dict[str, tuple[str, ...]]:
    """By searched regex, the hints of ``_kind``'s chain that only spares the search."""
    found = {}
    for name, chains in hint_chains().items():
        deciding = DECIDING.get(name)
        rest = [c for c in chains if deciding is None or not decides_as(c, deciding)]
        assert len(rest) == 1 and len(chains) == 1 + (deciding is not None), (name, chains)
        found[name] = rest[0]
    return found


def test_the_hint_chains_decide_as_the_hint_tuples() -> None:
    """Each searched regex with a deciding tuple has a chain that finds a hint in exactly the
    texts the tuple does ("it doesnt work" holds none: no correction)."""
    chains = hint_chains()
    assert sorted(chains) == ["_APPROVAL_ANY_LOW", "_CORRECTION_ANY_LOW", "_FOREIGN_ANY"]
    for name, hints in DECIDING.items():
        assert [c for c in chains[name] if decides_as(c, hints)], name
    assert signals.classify("it doesnt work") is None
    assert signals.classify("it doesnt work, you see") is SignalKind.CORRECTION


_PREFILTERS = prefilter_hints()
_PREFILTERED = [
    (signals.FOREIGN_CORRECTION_ANY, _PREFILTERS["_FOREIGN_ANY"]),
    (signals._CORRECTION_ANY, _PREFILTERS["_CORRECTION_ANY_LOW"]),
    (signals._APPROVAL_ANY, _PREFILTERS["_APPROVAL_ANY_LOW"]),
]


@pytest.mark.parametrize(
    ("pattern", "hints"), _PREFILTERED, ids=["foreign", "correction", "approval"]
)
def test_every_ascii_match_of_an_anywhere_part_holds_one_of_its_hints(
    pattern: str, hints: tuple[str, ...]
) -> None:
    """In plain text (``_NOT_PLAIN``) every match is ASCII: it then holds a hint."""
    readings = {r for m in language(pattern) for r in ascii_readings(m)}
    assert readings and all(GAP not in r for r in readings)  # these parts are finite
    missed = sorted(r for r in readings if not _hinted(r, hints))
    assert not missed, missed
    unused = [h for h in hints if not any(h in r for r in readings)]
    assert not unused, f"hints no ASCII match needs: {unused}"
    assert all(h.isascii() and h == h.lower() for h in hints)


def test_the_non_ascii_alternatives_cannot_match_ascii_text() -> None:
    """``schlägt``, ``échoue``, ``todavía``, ``não``: no fold makes them ASCII-matchable; and no
    pattern character matches an ASCII character other than its own case pair."""
    matches = language(signals.FOREIGN_CORRECTION_ANY)
    assert any("schlägt" in m for m in matches) and any("échoue" in m for m in matches)
    for m in matches:
        if not m.isascii():
            assert not ascii_readings(m), m
    chars = {c for m in matches for c in m} - {GAP}
    for c in chars:
        assert _ascii_folds(c) <= ({c.lower()} if c.isascii() else set()), c


def test_the_enumeration_is_what_the_patterns_match() -> None:
    """A check on ``language`` itself: each enumerated string is a match of its pattern."""
    for pattern in (signals.FOREIGN_CORRECTION_ANY, signals._CORRECTION_ANY, signals._APPROVAL_ANY):
        compiled = re.compile(pattern, re.IGNORECASE)
        for m in language(pattern):
            assert compiled.fullmatch(m), m


def test_the_split_patterns_are_the_old_ones() -> None:
    """``^START|ANY`` searched equals START matched at 0 or ANY searched (``^`` is 0 only)."""
    assert f"{signals._CORRECTION_START}|{signals._CORRECTION_ANY}" == _BEFORE_CORRECTION.pattern
    assert f"{signals._APPROVAL_START}|{signals._APPROVAL_ANY}" == _BEFORE_APPROVAL.pattern
    joined = f"{signals._FOREIGN_START.pattern}|{signals._FOREIGN_ANY.pattern}"
    assert joined == _BEFORE_FOREIGN_CORRECTION.pattern
    assert signals._FOREIGN_APPROVAL.pattern == _BEFORE_FOREIGN_APPROVAL.pattern
    assert signals._CORRECTION_HINTS == _BEFORE_CORRECTION_HINTS
    assert signals._APPROVAL_HINTS == _BEFORE_APPROVAL_HINTS


def test_the_english_parts_read_lowercased_text_case_sensitively() -> None:
    """ASCII letters, all lowercase, and only case-blind escapes (``\\s``, ``\\b``): on plain text
    IGNORECASE matches exactly what the pattern matches on the text lowercased."""
    for part in (
        signals._CORRECTION_START,
        signals._CORRECTION_ANY,
        signals._APPROVAL_START,
        signals._APPROVAL_ANY,
    ):
        assert part.isascii() and part == part.lower()
        assert set(re.findall(r"\\(.)", part)) <= {"s", "b"}


def test_plain_characters_lowercase_to_one_of_the_same_class() -> None:
    """Every code point: a non-ASCII one ``_NOT_PLAIN`` lets through matches no letter of the
    patterns read on plain text, and lowercases to one non-ASCII character that is a word (``\\w``)
    or space (``\\s``) character exactly when it is: the patterns see lowercased plain text as
    they see it, and their matches in it are ASCII."""
    everything = "".join(map(chr, range(128, 0x110000)))
    plain = signals._NOT_PLAIN.sub("", everything)
    low = plain.lower()
    assert len(low) == len(plain)
    assert re.search(r"[\x00-\x7f]", low) is None
    for category in (r"\w", r"\s"):
        found = re.compile(category)
        assert [m.start() for m in found.finditer(plain)] == [
            m.start() for m in found.finditer(low)
        ]
    letters = re.compile(f"[{re.escape(signals._FOLDED)}]", re.IGNORECASE)
    assert letters.search(plain) is None
    removed = set(everything) - set(plain)
    assert {"\u212a", "\u017f", "\u0130", "\u0131", "é", "Ä", "不", "Н", "ᲀ"} <= removed
    assert len(removed) < 200 and not removed & set("’—…🙂\u00a0ßçñ")


def test_the_ascii_word_pattern_is_the_unicode_one_on_ascii() -> None:
    for c in map(chr, range(128)):
        assert bool(signals._WORD.fullmatch(c)) == bool(signals._WORD_ASCII.fullmatch(c)), c


# --------------------------------------------------------------------------- the inputs


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _fixture_strings() -> list[str]:
    """Every string of every JSON record in the transcript fixtures (turns, tool output...)."""
    found: set[str] = set()
    for root in TRANSCRIPTS:
        for path in sorted(root.rglob("*.json*")) if root.is_dir() else ():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    found.update(_strings(json.loads(line)))
                except ValueError:
                    continue
    return sorted(found)


def _request_set_texts() -> list[str]:
    return [json.loads(line)["text"] for p in REQUEST_SETS for line in p.read_text().splitlines()]


def _test_suite_strings() -> list[str]:
    """The string literals of the test suite: its feedback phrases, requests and more."""
    found: set[str] = set()
    for path in sorted(TESTS.rglob("*.py")):
        if "requests_b" in path.name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return sorted(found)


def _assert_same(texts: Iterable[str]) -> int:
    n = 0
    for text in texts:
        assert signals.classify(text) == before_classify(text), text
        assert signals._words(text) == before_words(text), text
        n += 1
    return n


def test_the_transcript_fixtures_classify_alike() -> None:
    assert _assert_same(_fixture_strings()) > 500


def test_the_request_sets_classify_alike() -> None:
    texts = _request_set_texts()
    assert len(texts) > 400
    _assert_same(texts)


def test_the_test_suites_phrases_classify_alike() -> None:
    texts = _test_suite_strings()
    assert "no, that's wrong, the test still fails" in texts and "Danke, funktioniert" in texts
    _assert_same(texts)


def test_every_harvested_fixture_session_gets_the_same_signals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    captured: list[tuple[list[Any], tuple[int, ...]]] = []
    real = signals.detect

    def spy(steps: Sequence[Any], interrupted: Iterable[int] = ()) -> tuple[Any, ...]:
        kept = tuple(interrupted)
        captured.append((list(steps), kept))
        return real(steps, kept)

    monkeypatch.setattr(signals, "detect", spy)
    for root in (r for r in TRANSCRIPTS if r.is_dir()):
        homes = {
            h: next(p for p in (root / f".{h}", root / h) if p.is_dir())
            for h in ("claude", "codex", "copilot")
            if (root / f".{h}").is_dir() or (root / h).is_dir()
        }
        for project in PROJECTS:
            if homes:
                harvest(project, tuple(homes), "3650d", ":memory:", homes=homes, commit=False,
                        include_sidechains=True)  # fmt: skip
    users = [s[1] for steps, _ in captured for s in steps if s[0] == "user"]
    assert len(captured) >= 20 and len(users) >= 40
    for steps, interrupted in captured:
        assert real(steps, interrupted) == before_detect(steps, interrupted)
    _assert_same(users)


# ---------------------------------------------------------------------- generated text

_ALTERNATIVES = sorted(
    {
        m.replace(GAP, " ")
        for p in (
            signals._CORRECTION_START,
            signals._CORRECTION_ANY,
            signals._APPROVAL_START,
            signals._APPROVAL_ANY,
            rf"^\W*(?:{signals.FOREIGN_CORRECTION_START})",
            signals.FOREIGN_CORRECTION_ANY,
            rf"^\W*(?:{signals.FOREIGN_APPROVAL})",
        )
        for m in language(p)
    }
)
_HINTS = [
    *signals._CORRECTION_HINTS,
    *signals._APPROVAL_HINTS,
    *(h for chain in _PREFILTERS.values() for h in chain),
    "works",
    "worked",
]
_FOLDS = ["K", "ſ", "ı", "İ", "ß", "ẞ", "ǅ", "Å", "µ", "ﬁ", "ſtill", "worKs", "İs not", "noch"]
_OTHER = [
    "修复登录测试", "还是不行", "ログインを直して", "まだ失敗", "Почини тест", "НЕ РАБОТАЕТ",
    "أصلح الاختبار", "لا يعمل", "תקן את הבדיקה", "परीक्षण ठीक करो", "테스트 고쳐", "여전히 안",
    "the", "please", "fix", "login test", "ok", "x", "don’t", "it’s wrong", "—", "…", "🙂",
]  # fmt: skip
_SEPARATORS = [
    "",
    " ",
    ", ",
    ". ",
    "! ",
    "? ",
    "\n",
    "\t",
    "\u00a0",
    "，",
    "。",
    "…",
    "—",
    ": ",
    "-",
]
_CASES: list[Callable[[str], str]] = [
    str.lower,
    str.upper,
    str.title,
    str.swapcase,
    lambda s: "".join(c.upper() if i % 2 else c for i, c in enumerate(s)),
    lambda s: s.replace("k", "K").replace("s", "ſ"),  # Kelvin sign, long s
    lambda s: s.replace("i", "ı").replace("I", "İ"),  # dotless i, dotted capital I
]
_SPLICED = st.builds(
    lambda alternative, at, char: alternative[:at] + char + alternative[at:],
    st.sampled_from(_ALTERNATIVES),
    st.integers(0, 30),
    st.characters(),
)
_PIECES = st.one_of(
    st.sampled_from(_ALTERNATIVES),
    _SPLICED,
    st.sampled_from(_HINTS),
    st.sampled_from(_FOLDS),
    st.sampled_from(_OTHER),
    st.text(max_size=6),
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    parts = [
        draw(st.sampled_from(_SEPARATORS)) + draw(st.sampled_from(_CASES))(draw(_PIECES))
        for _ in range(draw(st.integers(0, 6)))
    ]
    filler = ("lorem ipsum " * 60)[: draw(st.sampled_from([0, 0, 0, 560, 585, 595, 600, 640]))]
    where = draw(st.integers(0, len(parts)))
    return "".join([*parts[:where], filler, *parts[where:]])


@settings(max_examples=500, deadline=None)
@given(_texts())
def test_generated_text_classifies_alike(text: str) -> None:
    assert signals.classify(text) == before_classify(text)
    assert signals._words(text) == before_words(text)


@pytest.mark.parametrize("case", range(len(_CASES)))
def test_every_alternative_in_every_case_and_place_classifies_alike(case: int) -> None:
    recase = _CASES[case]
    for alternative in _ALTERNATIVES:
        phrase = recase(alternative)
        for text in (
            phrase,
            f"... {phrase}!",
            f"ok, {phrase}",
            f"please fix the login test {phrase} now",
            "x" * 590 + " " + phrase,
            "请修复 " + phrase,
        ):
            assert signals.classify(text) == before_classify(text), text


_WORDS = ["fix", "the", "login", "test", "please", "again", "auth", "now", "修复", "测试", "тест"]
_USER = st.one_of(_texts(), st.lists(st.sampled_from(_WORDS), max_size=7).map(" ".join))
_CALL = st.tuples(
    st.just("c1"), st.sampled_from(["Bash", "Read"]), st.just("{}"), st.text(max_size=200),
    st.booleans(),
)  # fmt: skip
_STEP = st.one_of(
    st.tuples(st.just("user"), _USER, st.none(), st.just(())),
    st.tuples(st.just("assistant"), st.text(max_size=20), st.none(), st.lists(_CALL, max_size=2).map(tuple)),
)  # fmt: skip


@settings(max_examples=250, deadline=None)
@given(st.lists(_STEP, max_size=14), st.lists(st.integers(-2, 15), max_size=4))
def test_generated_sessions_get_the_same_signals(steps: list[Any], interrupted: list[int]) -> None:
    assert signals.detect(steps, interrupted) == before_detect(steps, interrupted)


@pytest.mark.parametrize("seed", range(4))
def test_a_long_session_of_near_repeats_gets_the_same_retries(seed: int) -> None:
    """Past ``RETRY_LOOKBACK`` requests, with sizes on the similarity bounds."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(12)]
    steps: list[Any] = []
    for _ in range(400):
        words = rng.sample(vocabulary, rng.choice([2, 3, 3, 4, 5, 5, 6, 8, 10]))
        steps.append(("user", " ".join(words), None, ()))
        if rng.random() < 0.3:
            steps.append(("assistant", "ok", None, (("c", "Bash", "{}", "boom", True),)))
    found = signals.detect(steps, [3, 5, 7])
    assert found == before_detect(steps, [3, 5, 7])
    assert sum(1 for s in found if s[0] == "retry") > 50
