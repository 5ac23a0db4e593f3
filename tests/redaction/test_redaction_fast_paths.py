"""The second speed-up of the redactor changes no output, step by step.

Each step it changed is checked against a frozen copy of the step as it was before (commit
0c5e1fc), kept here: the gate words (searched in groups keyed on a shared substring), the words
of ``KEY = value`` and ``Authorization:`` left unsearched in a text without ``:``, ``=`` or
``--``, the ``KEY = value`` anchors with no separator in reach left untried, the entropy rule
skipped for a text without a capital, ``looks_high_entropy`` telling the case mix first, the scan
prefilter's three marks and ``redact_many``'s NUL test. Then the whole redactor with every step
swapped back, on adversarial mixes: secrets beside the batch separator, placeholders, ``class="``
contexts, Unicode that lowers to ASCII, flags, every rule's literals and anchors.
"""

from __future__ import annotations

import string
import time
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core import _entropy, _redaction_scan, redaction
from skillopt_core._entropy import entropy_candidates
from skillopt_core._redaction_scan import (
    apply_matches,
    ascii_lower,
    assignment_at,
    assignment_positions,
    gate_words,
    sub_outside_placeholders,
)
from skillopt_core._secret_rules import ASSIGNMENT, RULES, SCAN_GATE, WORD_GATE, _rarity
from skillopt_core.redaction import Redactor

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, PASSWORDS, TOKENS

# the gate without its prefilter, as the prefilters of both speed-ups left it
from .test_redaction_equivalence import _plain_scan_hits as _head_scan_hits

# The steps as they were.

_HEAD_GUARDED = tuple((w, min(w, key=_rarity)) for w in WORD_GATE)


def _head_gate_words(low: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(w for w, char in _HEAD_GUARDED if char in low and w in low)


def _head_anchor_positions(low: str, anchors: tuple[str, ...]) -> list[int]:
    found: set[int] = set()
    for anchor in anchors:
        i = low.find(anchor)
        while i != -1:
            found.add(i)
            i = low.find(anchor, i + 1)
    return sorted(found)


def _head_looks_high_entropy(token: str) -> bool:
    n = len(token)
    if n < 32 or _entropy._HEXISH_RE.fullmatch(token) or _entropy._INTEGRITY_RE.match(token):
        return False
    if token.startswith(_entropy._SSH_PUBLIC_PREFIXES) or _entropy._CAMERA_RE.match(token):
        return False
    if _entropy._path_like(token):
        return any(_head_looks_high_entropy(p) for p in token.split("/") if len(p) >= 32)
    if not _entropy._mixes_case_and_digits(token):
        return False
    if sum(m.end() - m.start() for m in _entropy._WORD_RE.finditer(token)) >= 0.6 * n:
        return False
    return _entropy.shannon_entropy(token) >= _entropy._entropy_threshold(n)


def _head_unanchored(
    self: Redactor, text: str, counts: redaction.Counts, caseless: bool = False
) -> str:
    for kind, rx in self._extra:
        text = sub_outside_placeholders(rx, self._extra_repl(kind, counts), text)
    if self._entropy and len(text) >= 32:
        text = apply_matches(text, entropy_candidates(text), self._entropy_repl(counts))
    return text


def _head_redact_many(self: Redactor, texts: Sequence[str]) -> list[str]:
    if len(texts) < 2 or any("\x00" in t for t in texts):
        return [self.redact(t) for t in texts]
    joined = "\n\x00\n".join(texts)
    redacted = self.redact(joined)
    if redacted == joined:
        return list(texts)
    parts = redacted.split("\n\x00\n")
    if len(parts) != len(texts):
        return [self.redact(t) for t in texts]
    return parts


_HEAD_STEPS: dict[str, object] = {
    "gate_words": _head_gate_words,
    "assignment_positions": _head_anchor_positions,
    "looks_high_entropy": _head_looks_high_entropy,
    "scan_hits": _head_scan_hits,
}

# Adversarial pieces.

_SECRETS = [*TOKENS.values(), *PASSWORDS.values()]
_TOKEN_CHARS = string.ascii_letters + string.digits + "+/_-="
_LITERALS = sorted({lit for rule in RULES for lit in rule.literals})
_ANCHORS = sorted({a for rule in (*RULES, ASSIGNMENT) for a in rule.anchors})
_KEY_WORDS = ["password", "passwd", "credentials", "Credential", "PASSPHRASE", "Secret", "TOKEN"]
_PIECES = st.one_of(
    st.sampled_from(_LITERALS),
    st.sampled_from([*WORD_GATE, *_ANCHORS, *_KEY_WORDS, "api_key", "Bearer", "Authorization"]),
    st.sampled_from(["=", ": ", " = ", ":=", "=>", '"', "'", " ", "\t", "\n", "_", "-", "."]),
    st.sampled_from(["--", "--password ", "--api-key ", "--token=", "-- ", " --"]),
    st.sampled_from(["[REDACTED:secret]", "[REDACTED:", "]", "\x00", "\n\x00\n", "\x01", "\x03"]),
    st.sampled_from(['class="', "className='", "h1:", ".", "{", "sha512-", "AAAAC3NzaC1"]),
    st.sampled_from(["İ", "\u212aey", "\u212a", "ſecret", "ß", "é", "日本", "🙂", "K", "J", "z"]),
    st.sampled_from(["TCK-12", "zzabcd", "xzzabcdx", "w", "wh", "g", "gl", "k", "x", "SK"]),
    st.sampled_from(_SECRETS),
    st.builds(
        lambda shape, secret: shape.format(v=secret),
        st.sampled_from(BARE_SHAPES + ASSIGNMENT_SHAPES),
        st.sampled_from(_SECRETS),
    ),
    st.text(alphabet=_TOKEN_CHARS, min_size=8, max_size=72),
    st.text(alphabet=string.ascii_lowercase + string.digits + "/-", min_size=30, max_size=72),
    st.text(max_size=10),
)
_TEXT = st.lists(_PIECES, max_size=30).map("".join)
# Prose without a separator or a capital: where the skipped steps are skipped.
_PROSE_PIECES = st.one_of(
    st.sampled_from([*WORD_GATE, *_ANCHORS, "passwd", "credentials", "bearer", "the", "a"]),
    st.sampled_from([" ", "\t", "\n", "_", "-", ".", '"', "'", "--", "[redacted]", "\x00"]),
    st.sampled_from([s.lower() for s in _SECRETS]),
    st.text(alphabet=string.ascii_lowercase + string.digits + "+/_-", min_size=8, max_size=72),
)
_PROSE = st.lists(_PROSE_PIECES, max_size=30).map("".join)


def _redactors() -> list[Redactor]:
    extra = {"ticket": r"TCK-\d+", "zz": r"(?P<secret>zz[a-z]{4})", "sep": r"\n\x00\n"}
    return [
        Redactor(),
        Redactor(extra, allowlist=[PASSWORDS["password"]], entropy=False),
        Redactor({"upper": r"ZZ[A-Z]{3}"}, allow_patterns=[r"AKIA[0-9A-Z]{16}"]),
    ]


def _results(texts: list[str]) -> list[object]:
    found: list[object] = []
    for redactor in _redactors():
        found.append([redactor.redact(t) for t in texts])
        found.append([redactor.redact_with_report(t) for t in texts])
        found.append(redactor.redact_many(texts))
    return found


def _head_results(texts: list[str]) -> list[object]:
    with pytest.MonkeyPatch.context() as patch:
        for name, step in _HEAD_STEPS.items():
            patch.setattr(redaction, name, step)
        patch.setattr(Redactor, "_unanchored", _head_unanchored)
        patch.setattr(Redactor, "redact_many", _head_redact_many)
        return _results(texts)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6))
def test_the_redactor_gives_what_it_gave(texts: list[str]) -> None:
    assert _results(texts) == _head_results(texts)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PROSE, min_size=1, max_size=6))
def test_the_redactor_gives_what_it_gave_on_prose(texts: list[str]) -> None:
    assert _results(texts) == _head_results(texts)


@pytest.mark.parametrize(
    "texts",
    [
        ["deploy --password hunter2hunter2 now", "and the token expired"],
        ["api_token abcdefgh123 stays", "--db-token s3cr3tvalue99 goes"],
        ["github token " + TOKENS["github-pat-classic"], "key " + TOKENS["openai-key"]],
        ["password", TOKENS["high-entropy"]],  # a key word ending one text, a value the next
        ["api_key=", PASSWORDS["password"]],
        [TOKENS["jwt"], 'class="' + TOKENS["high-entropy"]],
        ["authorization bearer " + TOKENS["high-entropy"], "bearer\t" + "x" * 24],
        [TOKENS["high-entropy"].lower(), "zq8vk2mn7px4rt9wl1yh6cj5bg3fd0sa8eu2io7x"],
        ["\u212aey = 'Tr0ub4dor&3'", "ſecret=Tr0ub4dor&3", "İ token: Tr0ub4dor&3"],
        ["a\x00b token=Tr0ub4dor&3", "c"],
        ["[REDACTED:secret] token [REDACTED:github-token]", "ghp_" + "x" * 36],
    ],
    ids=[
        "flag-without-separator",
        "bare-space-needs-a-flag",
        "scan-rules-then-anchors",
        "key-word-before-the-separator",
        "assignment-across-the-separator",
        "class-attribute-in-the-text-before",
        "bearer-and-authorization",
        "caseless-runs",
        "unicode-lowering-to-ascii",
        "nul-in-a-text",
        "placeholders",
    ],
)
def test_adversarial_batches_redact_as_before(texts: list[str]) -> None:
    assert _results(texts) == _head_results(texts)


def test_a_flag_without_a_separator_is_still_redacted() -> None:
    text = "deploy --password hunter2hunter2 now"
    assert ":" not in text and "=" not in text
    assert redaction.redact(text) == "deploy --password [REDACTED:secret] now"
    assert redaction.redact("deploy password hunter2hunter2 now") == (
        "deploy password hunter2hunter2 now"
    )


# The steps one by one.


@settings(max_examples=600, deadline=None)
@given(_TEXT, st.sampled_from([frozenset(), redaction._SEPARATED_WORDS, frozenset(WORD_GATE)]))
def test_the_gate_words_are_the_words_in_the_text(text: str, skip: frozenset[str]) -> None:
    low = ascii_lower(text)
    assert gate_words(low) == _head_gate_words(low)
    assert _head_gate_words(low) - skip <= gate_words(low, skip) <= _head_gate_words(low)


def test_every_gate_word_is_searched_once() -> None:
    searched = [w for _, _, words in _redaction_scan._WORD_SEARCHES for w in words]
    assert sorted(searched) == sorted(WORD_GATE)


def test_the_words_skipped_without_a_separator_gate_nothing_else() -> None:
    """Only ``KEY = value`` and ``Authorization:`` wait on them; ``Bearer`` needs none."""
    others = [r for r in RULES if r.anchors and r.kind != "authorization"]
    assert others and all(redaction._SEPARATED_WORDS.isdisjoint(r.gate) for r in others)
    assert set(ASSIGNMENT.gate) <= redaction._SEPARATED_WORDS


@settings(max_examples=800, deadline=None)
@given(_TEXT)
def test_an_anchor_left_out_starts_no_assignment(text: str) -> None:
    low = ascii_lower(text)
    every = _head_anchor_positions(low, ASSIGNMENT.anchors)
    kept = assignment_positions(low, ASSIGNMENT.anchors)
    assert kept == sorted(set(kept)) and set(kept) <= set(every)
    for p in set(every) - set(kept):
        assert assignment_at(text, p) is None, (text, p)


_FORMS = ["secret", "token", "passwd", "password", "passphrase", "key", "credential",
          "credentials", "PassWord", "CREDENTIALS", "\u212aey", "Token"]  # fmt: skip


@pytest.mark.parametrize("form", _FORMS)
def test_every_key_word_form_reaches_its_separator(form: str) -> None:
    """Each key word, quoted or not, before each separator, as a flag or not: the anchors kept
    are those the old search tried that can match, so the output is the same."""
    texts = [
        f"{head}{form}{quote}{sep}Tr0ub4dor&3"
        for head in ("", "api_", "--", "x ", "my-")
        for quote in ("", '"', "'")
        for sep in ("=", ": ", " = ", ":=", "=>", "\t=", " ", "  :", "\t")
    ]
    redactor = Redactor()
    fast = [redactor.redact_with_report(t) for t in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "assignment_positions", _head_anchor_positions)
        assert fast == [redactor.redact_with_report(t) for t in texts]
    assert any(r.counts for r in fast)


def test_an_anchor_that_overlaps_itself_is_found_at_each_start() -> None:
    assert assignment_positions("ababab: x", ("abab",)) == [0, 2]
    assert assignment_positions("abababab x", ("abab",)) == [2, 4]  # " " after a key character
    assert assignment_positions("abababab\nx", ("abab",)) == []


_TOKENISH = st.one_of(
    st.text(alphabet=_TOKEN_CHARS, max_size=120),
    st.text(alphabet=string.ascii_lowercase + string.digits + "/-_", max_size=120),
    st.text(alphabet=string.hexdigits + "-", min_size=30, max_size=80),
    st.builds("/".join, st.lists(st.text(alphabet=_TOKEN_CHARS, max_size=48), max_size=5)),
    st.builds(
        lambda head, tail: head + tail,
        st.sampled_from(["sha512-", "AAAAC3NzaC1", "PXL_20240315_142233917", "/", "h1:"]),
        st.text(alphabet=_TOKEN_CHARS, min_size=20, max_size=80),
    ),
    st.sampled_from([*_SECRETS, *(s.lower() for s in _SECRETS), *(s.upper() for s in _SECRETS)]),
    st.text(max_size=60),
)


@settings(max_examples=1500, deadline=None)
@given(_TOKENISH)
def test_the_entropy_judgement_is_unchanged(token: str) -> None:
    assert _entropy.looks_high_entropy(token) == _head_looks_high_entropy(token)


@settings(max_examples=800, deadline=None)
@given(_TEXT)
def test_the_three_marks_find_what_the_gate_finds(text: str) -> None:
    assert [m.span() for m in _redaction_scan._gate_matches(text)] == [
        m.span() for m in SCAN_GATE.finditer(text)
    ]
    assert _redaction_scan.scan_hits(text) == _head_scan_hits(text)


@pytest.mark.parametrize("literal", _LITERALS)
def test_each_literal_is_found_beside_every_mark(literal: str) -> None:
    """Each mark byte and each pivot character next to a literal: no candidate is lost."""
    pivots = sorted({lit[i] for lit in _LITERALS for i in range(len(lit))} | set("\x01\x02\x03"))
    for c in pivots:
        for text in (c + literal, literal + c, c + literal + c, literal[:-1] + c + literal):
            assert [m.span() for m in _redaction_scan._gate_matches(text)] == [
                m.span() for m in SCAN_GATE.finditer(text)
            ], text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b\x00", "\x00", "\n\x00\n", "token=Tr0ub4dor&3"]), max_size=6)
)
def test_a_text_holding_a_nul_is_redacted_alone(texts: list[str]) -> None:
    redactor = Redactor()
    assert redactor.redact_many(texts) == _head_redact_many(redactor, texts)
    if any("\x00" in t for t in texts):
        assert redactor.redact_many(texts) == [redactor.redact(t) for t in texts]


def test_counts_are_a_plain_dict_of_kinds() -> None:
    result = Redactor().redact_with_report(f"token={PASSWORDS['password']} {TOKENS['jwt']}")
    assert type(result.counts) is dict and result.counts == Counter({"secret": 1, "jwt": 1})


@pytest.mark.parametrize(
    "text",
    [
        ("token" + " " * 64) * 3000,
        ("key\t" + "\t" * 40) * 4000,
        "--" * 100_000,
        ("passw" + "o" * 3 + "rd" + '"' * 2) * 10_000,
        ("secret'" + " " * 30 + "x") * 5000,
    ],
    ids=["spaces-after-anchors", "tabs-after-key", "dashes", "quotes", "quote-then-spaces"],
)
def test_separator_lookaheads_stay_linear(text: str) -> None:
    redactor = Redactor()
    start = time.perf_counter()
    out = redactor.redact(text)
    assert time.perf_counter() - start < 0.5
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "assignment_positions", _head_anchor_positions)
        assert redactor.redact(text) == out
