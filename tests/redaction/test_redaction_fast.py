"""The redactor's C scans (``_redaction_fast.c``) give what their Python reference gives.

``scan_hits`` to the character and ``gate_words`` to the word, on every str kind, with the SIMD
scan and with the one a character at a time (``vector=False``); then the whole redactor, the C
scans against the Python ones, on the recorded outputs' texts and batches and every planted
secret. The build's status: CI requires it; ``SKILLOPT_PURE_PYTHON`` turns it off.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from faults._planted import ALL, IN_CONTEXT, SECRETS
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core import _native, _redaction_scan, redaction
from skillopt_core._redaction_scan import _py_gate_words, _py_scan_hits, ascii_lower
from skillopt_core._secret_rules import RULES, WORD_GATE
from skillopt_core.redaction import Redactor

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, PASSWORDS, TOKENS

FAST = _redaction_scan._FAST
ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "skillopt_core" / "_redaction_fast.c"
LITERALS = sorted({lit for rule in RULES for lit in rule.literals})
WIDE = ("é", "\u2014", "\U0001f600")  # a str of kind 1 (not ASCII), 2 and 4
SKIPS = [frozenset(), redaction._SEPARATED_WORDS, frozenset(WORD_GATE), frozenset({"nope"})]


def _why_not_compiled() -> str:
    found = _native.status("skillopt_core._redaction_fast", [SOURCE])[0]
    return {
        "off": "SKILLOPT_PURE_PYTHON is set: the C scans are off",
        "not built": "the C scans are not built (pip install -e . with a C compiler)",
        "stale": "the C scans' build is older than their source (pip install -e . again)",
    }.get(found, "")


needs_c = pytest.mark.skipif(FAST is None, reason=_why_not_compiled() if FAST is None else "")


def fast() -> ModuleType:
    assert FAST is not None
    return FAST


@contextmanager
def _scalar() -> Iterator[None]:
    """The C scans a character at a time, as where no SIMD is there."""
    _redaction_scan._configure(fast(), vector=False)
    try:
        yield
    finally:
        _redaction_scan._configure(fast())


def _both(call: Callable[[], Any]) -> list[Any]:
    """``call()`` with the SIMD scans (where the processor has them), then without."""
    first = call()
    with _scalar():
        return [first, call()]


def _check(texts: list[str], skips: list[frozenset[str]] = SKIPS) -> None:
    """``scan_hits`` of each text, and ``gate_words`` of it lowered (and as is) with each skip,
    as in Python; and the contract the redactor relies on: a literal is in the hits exactly
    when it is in the text."""
    lows = [(low, s) for t in texts for low in dict.fromkeys((ascii_lower(t), t)) for s in skips]
    scans = [_py_scan_hits(t) for t in texts]
    gates = [_py_gate_words(low, skip) for low, skip in lows]
    for got_scans, got_gates in _both(
        lambda: (
            [fast().scan_hits(t) for t in texts],
            [_redaction_scan.gate_words(low, skip) for low, skip in lows],
        )
    ):
        wrong = [(t, g, e) for t, g, e in zip(texts, got_scans, scans, strict=True) if g != e]
        assert not wrong, wrong[:3]
        unlike = [(w, g, e) for w, g, e in zip(lows, got_gates, gates, strict=True) if g != e]
        assert not unlike, unlike[:3]
    for text, hits in zip(texts, scans, strict=True):
        assert [lit in hits for lit in LITERALS] == [lit in text for lit in LITERALS], text


# ---- the build ---------------------------------------------------------------------------------


def test_ci_always_builds_the_scans() -> None:
    """CI must exercise the C scans: there a missing or stale build fails instead of skipping."""
    if not os.environ.get("CI"):
        pytest.skip("outside CI a missing build only skips the C scans' tests")
    importlib.import_module("skillopt_core._redaction_fast")
    if not os.environ.get("SKILLOPT_PURE_PYTHON"):
        assert FAST is not None, _why_not_compiled()
        assert redaction.scan_hits is fast().scan_hits


def test_pure_python_is_one_variable_away() -> None:
    code = (
        "from skillopt_core import _redaction_scan as s, redaction as r; "
        "print(s._FAST, r.scan_hits is s._py_scan_hits)"
    )
    env = {**os.environ, "SKILLOPT_PURE_PYTHON": "1"}
    shown = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True)
    assert shown.stdout.split() == [b"None", b"True"], shown.stderr


@needs_c
def test_the_redactor_uses_the_c_scans() -> None:
    assert redaction.scan_hits is fast().scan_hits
    assert _redaction_scan.gate_words("a token", frozenset()) == {"token"}


@needs_c
def test_a_build_from_another_source_is_stale(tmp_path: Path) -> None:
    edited = tmp_path / "_redaction_fast.c"
    edited.write_bytes(SOURCE.read_bytes() + b"\n/* edited */\n")
    module = "skillopt_core._redaction_fast"
    assert _native.status(module, [SOURCE]) == ("built", FAST)
    assert _native.status(module, [edited]) == ("stale", None)


@needs_c
@pytest.mark.parametrize(
    ("literals", "margin", "words", "error"),
    [
        ([("é", 0, 0)], 1, [], ValueError),  # not ASCII
        ([("abc", 3, 0)], 1, [], ValueError),  # pivot outside the literal
        ([("", 0, 0)], 1, [], ValueError),
        ([("abc", 0, 0)], -1, [], ValueError),
        ([("abc", 0, 0)], 1 << 40, [], ValueError),
        ([], 1, [(f"w{i}", 0, 1) for i in range(63)], ValueError),  # more words than mask bits
        ([("abc", 0)], 1, [], TypeError),
        ([["abc", 0, 0]], 1, [], TypeError),
        (5, 1, [], TypeError),
    ],
)
def test_a_bad_configuration_is_refused_and_changes_nothing(
    literals: Any, margin: int, words: Any, error: type[Exception]
) -> None:
    before = fast().scan_hits("x sk-abc y")
    with pytest.raises(error):
        fast().configure(literals, margin, words)
    assert fast().scan_hits("x sk-abc y") == before == _py_scan_hits("x sk-abc y")


@needs_c
def test_only_str_is_scanned() -> None:
    with pytest.raises(TypeError):
        fast().scan_hits(b"sk-abc")
    with pytest.raises(TypeError):
        fast().gate_mask(b"token", 0)
    with pytest.raises(TypeError):
        fast().gate_mask("token", "0")
    with pytest.raises(TypeError):
        fast().gate_mask("token")


# ---- scan_hits and gate_words, one by one --------------------------------------------------------


def _near_misses(word: str) -> list[str]:
    """``word`` one character off (each position, a neighbour character), cut at either end."""
    out = [word[:-1], word[1:]]
    for i, ch in enumerate(word):
        for other in {chr(ord(ch) ^ 1), chr(ord(ch) ^ 32), "\x00", "é"}:
            out.append(word[:i] + other + word[i + 1 :])
    return [w for w in out if w]


_CHARS = (
    "".join(sorted({c for w in (*LITERALS, *WORD_GATE) for c in w})) + " \n\x00é\u2014\U0001f600"
)
_PIECES = st.one_of(
    st.sampled_from(LITERALS),
    st.sampled_from(WORD_GATE),
    st.sampled_from([m for w in (*LITERALS, *WORD_GATE) for m in _near_misses(w)]),
    st.builds(
        lambda w, k: w * k,
        st.sampled_from(["sk-", "ghp_", "eyJ", "xox", "gl", "k"]),
        st.integers(2, 12),
    ),
    st.text(alphabet=_CHARS, max_size=24),
    st.sampled_from(WIDE),
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    """Pieces rich in the literals' characters, shifted by a filler (so a literal falls at every
    place of a 16-character block), at times with a character of a wider kind somewhere."""
    head = draw(st.text(alphabet="ab ", max_size=20))
    text = head + "".join(draw(st.lists(_PIECES, max_size=48))) * draw(st.integers(1, 3))
    wide = draw(st.sampled_from(["", *WIDE]))
    at = draw(st.integers(0, len(text)))
    return text[:at] + wide + text[at:]


@needs_c
@settings(max_examples=2500, deadline=None)
@given(_texts(), st.frozensets(st.sampled_from(WORD_GATE)))
def test_the_scans_are_the_python_ones(text: str, skip: frozenset[str]) -> None:
    _check([text], [*SKIPS, skip])


@needs_c
@pytest.mark.parametrize("filler", ["a", "_g:kx", "\x00"])
def test_every_literal_and_word_at_every_place(filler: str) -> None:
    """Each literal and gate word at each offset in a 16-character block, at the very start
    and the very end, after a character of each kind; its near misses at fewer places."""
    words = [*LITERALS, *WORD_GATE]
    pad = filler * 40
    texts = [
        wide + pad[:before] + word + pad[:after]
        for word in words
        for before in range(34)
        for after in (0, 1, 16, 17)
        for wide in ("", *WIDE)
    ]
    texts += [
        wide + pad[:before] + miss + pad[:after]
        for word in words
        for miss in _near_misses(word)
        for before in (0, 16, 17)
        for after in (0, 16)
        for wide in ("", "\u2014")
    ]
    _check(texts, SKIPS[:2])


@needs_c
@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00",
        "\x00" * 40,
        "sk-" * 200,
        "ghp_" * 200 + "x",
        "eyJ" * 300,
        "xoxox" * 50,
        "sk-sk_live_sk_test_rk_live_" * 20,
        "g" * 100 + "glpat",
        "://" + "a" * 100 + "://",
        "AKIA" * 5 + "é" + "SKa" * 5 + "\U0001f600" + "AIza",
        "\u2014" * 50 + "hooks.slack.com/services/" + "\u2014" * 50,
        "-----BEGIN" + "\x00" + "-----BEGIN",
        "ke" * 50 + "y",
        "toke" * 40 + "n",
        "authorizatio bearer secre passs credentia",
        "KEY TOKEN Pass Secret",
    ],
)
def test_edge_texts(text: str) -> None:
    _check([text])


@needs_c
def test_many_neighbourhoods_outgrow_the_local_spans() -> None:
    """More than 32 separate hits: the span list grows onto the heap."""
    texts = [wide + ("sk-" + "a" * 60) * 200 for wide in ("", *WIDE)]
    _check(texts)
    assert [fast().scan_hits(t).count("\x00") for t in texts] == [199] * 4


@needs_c
def test_random_long_texts() -> None:
    rng = random.Random(7)
    pieces = [*LITERALS, *WORD_GATE, "a", " ", "_", "g", "k", ":", "x", "\n", *WIDE]
    _check(["".join(rng.choice(pieces) for _ in range(rng.randrange(400))) for _ in range(300)])


# ---- the whole redactor ------------------------------------------------------------------------

_GOLDEN = json.loads(
    (ROOT / "tests" / "data" / "redaction_golden.json").read_text(encoding="utf-8")
)
_PLANTED = [*TOKENS.values(), *PASSWORDS.values(), *SECRETS.values()]
_PLANTED_TEXTS = [
    ALL,
    *(IN_CONTEXT.get(k, "{v}").format(v=v) for k, v in SECRETS.items()),
    *(shape.format(v=v) for shape in (*ASSIGNMENT_SHAPES, *BARE_SHAPES) for v in _PLANTED),
]


def _redactors() -> list[Redactor]:
    extra = {"ticket": r"TCK-\d+", "zz": r"(?P<secret>zz[a-z]{4})"}
    return [Redactor(), Redactor(extra, allowlist=[PASSWORDS["password"]], entropy=False)]


def _outputs(texts: list[str], batches: list[list[str]]) -> list[Any]:
    found: list[Any] = []
    for redactor in _redactors():
        found.append([redactor.redact(t) for t in texts])
        found.append([redactor.redact_with_report(t) for t in texts])
        found.append([redactor.redact_many(b) for b in batches])
    return found


def _python_outputs(texts: list[str], batches: list[list[str]]) -> list[Any]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "scan_hits", _py_scan_hits)
        patch.setattr(redaction, "gate_words", _py_gate_words)
        return _outputs(texts, batches)


@needs_c
def test_the_redactor_redacts_the_recorded_texts_as_in_python() -> None:
    texts = [text for text, _, _ in _GOLDEN["texts"]]
    batches = [list(b) for b, _ in _GOLDEN["batches"]]
    batches += [[texts[i] for i in indices] for indices, _ in _GOLDEN["index_batches"]]
    expected = _python_outputs(texts, batches)
    assert redaction.scan_hits is fast().scan_hits
    for got in _both(lambda: _outputs(texts, batches)):
        assert got == expected


@needs_c
def test_the_redactor_redacts_every_planted_secret_as_in_python() -> None:
    texts = _PLANTED_TEXTS
    batches = [texts[i : i + 7] for i in range(0, len(texts), 7)] + [[ALL, *_PLANTED]]
    expected = _python_outputs(texts, batches)
    for got in _both(lambda: _outputs(texts, batches)):
        assert got == expected
    redacted = Redactor().redact_many([ALL, "ok"])[0]
    assert not [v for v in TOKENS.values() if v in redacted]  # and they are redacted
