"""The faster redactor gives what the redactor before it gave, to the character.

Two checks. Recorded outputs (``tests/data/redaction_golden.json``): every planted secret kind
in its field shapes, edge cases (placeholders, NULs, the scan prefilter's mark bytes, ``İ``
whose lowercase is longer, the Kelvin sign whose lowercase is ``k``) and seeded mixes of secrets,
gate words and token runs, each with its ``redact`` output and counts, and batches (among them
harvested fixture sessions) with their ``redact_many`` output, all recorded from the
implementation before the speed-up (commit 4c84429) and never regenerated from the code under
test. And a differential property test: the redactor against itself with each sped-up step
swapped back for the plain step it replaced (a few lines each, kept here).
"""

from __future__ import annotations

import json
import re
import string
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core import _redaction_scan, redaction
from skillopt_core._secret_rules import RULES, SCAN_GATE, WORD_GATE
from skillopt_core.redaction import Redactor

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, PASSWORDS, TOKENS

_GOLDEN = json.loads(
    (Path(__file__).parents[1] / "data" / "redaction_golden.json").read_text(encoding="utf-8")
)
_TEXTS: list[str] = [text for text, _, _ in _GOLDEN["texts"]]


def test_texts_redact_as_recorded() -> None:
    redactor = Redactor()
    wrong = [
        text
        for text, expected, counts in _GOLDEN["texts"]
        if redactor.redact(text) != expected
        or redactor.redact_with_report(text) != redaction.RedactionResult(expected, counts)
    ]
    assert not wrong, wrong[:3]


def test_batches_redact_as_recorded() -> None:
    """``null``: the text unchanged (harvested batches). A batch of recorded texts redacts each
    text as it is redacted alone (the recording has two where the old code did not: its entropy
    rule's look-back for a ``class=`` attribute reached into the text before)."""
    redactor = Redactor()
    for indices, _ in _GOLDEN["index_batches"]:
        alone = [_GOLDEN["texts"][i][1] for i in indices]
        assert redactor.redact_many([_TEXTS[i] for i in indices]) == alone, indices
    for texts, outputs in _GOLDEN["batches"]:
        expected = [o if o is not None else t for o, t in zip(outputs, texts, strict=True)]
        assert redactor.redact_many(texts) == expected, texts[:2]


def test_an_open_class_attribute_never_hides_a_secret_in_the_next_text_of_a_batch() -> None:
    token = "Zq8vK2mN7pX4rT9wL1yH6cJ5bG3fD0sA8eU2iO7x"
    alone = redaction.redact(f"deploy key {token}")
    assert token not in alone
    batch = redaction.redact_many(['<div class="card', f"deploy key {token}"])
    assert batch == ['<div class="card', alone]


# The plain steps the sped-up ones replaced.


def _plain_scan_hits(text: str) -> str:
    margin = _redaction_scan._HIT_MARGIN
    parts: list[str] = []
    lo = hi = -1
    for m in SCAN_GATE.finditer(text):
        start = m.start() - margin
        if hi >= 0 and start <= hi:
            hi = m.end() + margin
            continue
        if hi >= 0:
            parts.append(text[lo:hi])
        lo, hi = max(0, start), m.end() + margin
    if hi >= 0:
        parts.append(text[lo:hi])
    return "\x00".join(parts)


def _plain_apply_matches(
    text: str, matches: Iterable[re.Match[str]], repl: _redaction_scan.Sub
) -> str:
    out: list[str] = []
    last = 0
    for m in matches:
        out.append(text[last : m.start()])
        out.append(repl(m))
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _plain_gate_words(low: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(w for w in WORD_GATE if w in low)


def _plain_redact_many(redactor: Redactor, texts: Sequence[str]) -> list[str]:
    if len(texts) < 2 or any("\x00" in t for t in texts):
        return [redactor.redact(t) for t in texts]
    parts = redactor.redact("\n\x00\n".join(texts)).split("\n\x00\n")
    if len(parts) != len(texts):
        return [redactor.redact(t) for t in texts]
    return parts


def _redactors() -> list[Redactor]:
    """The default, and one with user patterns (one takes the batch separator, so batches fall
    back to one by one), an allowlist and no entropy rule."""
    extra = {"ticket": r"TCK-\d+", "zz": r"(?P<secret>zz[a-z]{4})", "sep": r"\n\x00\n"}
    return [Redactor(), Redactor(extra, allowlist=[PASSWORDS["password"]], entropy=False)]


def _results(texts: list[str], plain: bool) -> list[object]:
    found: list[object] = []
    for redactor in _redactors():
        found.append([redactor.redact(t) for t in texts])
        found.append([redactor.redact_with_report(t) for t in texts])
        found.append(_plain_redact_many(redactor, texts) if plain else redactor.redact_many(texts))
    return found


_SECRETS = [*TOKENS.values(), *PASSWORDS.values()]
_TOKEN_CHARS = string.ascii_letters + string.digits + "+/_-="
_LITERALS = sorted({lit for rule in RULES for lit in rule.literals})
_PIECES = st.one_of(
    st.sampled_from(_LITERALS),
    st.sampled_from(
        [*WORD_GATE, "Token", "KEY", "Bearer", "Authorization", "api_key", "--password", "passwd"]
    ),
    st.sampled_from(["=", ": ", " = ", '"', "'", "\n", " ", "://", "/", ".", "_", "-", "\t"]),
    st.sampled_from(["[REDACTED:secret]", "[REDACTED:", "\x00", "\x01", "\x02", "h1:", 'class="']),
    st.sampled_from(["TCK-12", "zzabcd", "xzzabcdx"]),
    st.sampled_from(["İ", "\u212a", "ſ", "ß", "é", "日本", "🙂", "K", "J", "z", "g", "w", "x"]),
    st.sampled_from(_SECRETS),
    st.builds(
        lambda shape, secret: shape.format(v=secret),
        st.sampled_from(BARE_SHAPES + ASSIGNMENT_SHAPES),
        st.sampled_from(_SECRETS),
    ),
    st.text(alphabet=_TOKEN_CHARS, min_size=8, max_size=64),
    st.text(max_size=10),
)
_MIXED = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_MIXED, min_size=1, max_size=6))
def test_sped_up_steps_change_nothing(texts: list[str]) -> None:
    fast = _results(texts, plain=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "scan_hits", _plain_scan_hits)
        patch.setattr(redaction, "apply_matches", _plain_apply_matches)
        patch.setattr(redaction, "gate_words", _plain_gate_words)
        patch.setattr(redaction, "assignment_positions", _redaction_scan.anchor_positions)
        plain = _results(texts, plain=True)
    assert fast == plain


@settings(max_examples=600, deadline=None)
@given(_MIXED)
def test_the_prefiltered_gate_finds_what_the_gate_finds(text: str) -> None:
    assert [m.span() for m in _redaction_scan._gate_matches(text)] == [
        m.span() for m in SCAN_GATE.finditer(text)
    ]
    assert _redaction_scan.scan_hits(text) == _plain_scan_hits(text)


@pytest.mark.parametrize("literal", _LITERALS)
def test_every_literal_is_found_where_the_gate_finds_it(literal: str) -> None:
    """The prefilter keys each literal where SCAN_GATE does; a literal it left out, or keyed
    elsewhere, would be missed here."""
    for text in (literal, f"x{literal}y", f"{literal}{literal}", f"{literal[:-1]} {literal[1:]}"):
        assert [m.span() for m in _redaction_scan._gate_matches(text)] == [
            m.span() for m in SCAN_GATE.finditer(text)
        ], text


@pytest.mark.parametrize(
    "text",
    [
        "ghp_" * 100 + TOKENS["github-pat-classic"],
        "g//" * 100 + "://",
        "x_" * 50 + "hf_" + "ey_" * 50 + "eyJ",
        "\x01://\x02hf_\x01" * 40,
        "İ" * 30 + "AKIA" + "\u212a" * 30 + "SKa",
    ],
    ids=[
        "past-the-candidate-budget",
        "past-it-with-false-candidates",  # ``g`` is marked like ``:``
        "the-second-mark",
        "mark-bytes-in-the-text",
        "non-ascii",
    ],
)
def test_dense_candidates_find_what_the_gate_finds(text: str) -> None:
    assert [m.span() for m in _redaction_scan._gate_matches(text)] == [
        m.span() for m in SCAN_GATE.finditer(text)
    ]


def test_false_candidates_stay_linear() -> None:
    """Every ``g`` before ``//`` is a candidate the gate refuses; past the budget the gate scans
    alone, so such text costs what it cost before."""
    text = "g//" * 100_000
    start = time.perf_counter()
    assert _redaction_scan.scan_hits(text) == ""
    assert time.perf_counter() - start < 0.4


def test_counts_come_with_the_text() -> None:
    result = Redactor().redact_with_report(f"token={PASSWORDS['password']} {TOKENS['jwt']}")
    assert result.counts == Counter({"secret": 1, "jwt": 1})
