"""Adversarial timing: no input makes redaction super-linear.

Each input below repeats a rule's start (an anchor word, a token prefix) so that a pattern
re-scanning the rest of the run from every start costs O(n^2): 96 KB of them took 2-15 s before
the rules were bounded, and take milliseconds now. The bound is generous (a loaded machine stays
far below it) and the outputs are checked too: bounding a rule must not change what it redacts.
"""

from __future__ import annotations

import time

import pytest

from skillopt_core.redaction import Redactor, scan_hits

_N = 96_000
_LIMIT_S = 0.4

# name -> (text, what it must redact to)
_CASES: dict[str, tuple[str, str]] = {
    # a value holding more anchors: the first match takes it all, the rest lie inside it
    "password=": ("password=" * (_N // 9), "password=[REDACTED:secret]"),
    "token:": ("token:" * (_N // 6), "token:[REDACTED:secret]"),
    "api_key=": ("api_key=" * (_N // 8), "api_key=[REDACTED:secret]"),
    # declined whatever the value: a bare ``key``, a ``$VAR`` or ``os.`` reference
    "key=": ("key=" * (_N // 4), "key=" * (_N // 4)),
    "token=$": ("token=$" * (_N // 7), "token=$" * (_N // 7)),
    "token=os.": ("token=os." * (_N // 9), "token=os." * (_N // 9)),
    # token prefixes whose conditions were checked by lookaheads over the rest of the run
    "sk-": ("sk-" * (_N // 3), "sk-" * (_N // 3)),
    "eyJ": ("eyJ" * (_N // 3), "eyJ" * (_N // 3)),
}


def _timed(text: str) -> tuple[str, float]:
    redactor = Redactor()
    start = time.perf_counter()
    out = redactor.redact(text)
    return out, time.perf_counter() - start


@pytest.mark.parametrize("name", sorted(_CASES))
def test_repeated_rule_starts_redact_in_linear_time(name: str) -> None:
    text, expected = _CASES[name]
    out, elapsed = _timed(text)
    assert out == expected
    assert elapsed < _LIMIT_S, f"{name}: {elapsed:.2f} s for {len(text)} characters"


def test_many_placeholders_and_declined_matches_stay_linear() -> None:
    """The second pass sees one placeholder per secret of the first and tests every declined
    match (``x-token abcdefgh``: a bare-space value) against the placeholders: it compared each
    match with every placeholder (2.8 s for 256 KB)."""
    unit = "api_key=Secr3tValue1 x-token abcdefgh "
    text = unit * (256_000 // len(unit))
    out, elapsed = _timed(text)
    assert out == "api_key=[REDACTED:secret] x-token abcdefgh " * (256_000 // len(unit))
    assert elapsed < 1.0, f"{elapsed:.2f} s"


def test_dense_scan_gate_hits_are_merged() -> None:
    """A scan-gate hit every few characters (``ghp_ghp_...``): the neighbourhoods of the hits
    overlapped, and each character was copied ~18 times into the text that every literal is
    then searched in (0.8 s for 1 MB); overlapping ones are merged now."""
    text = "ghp_" * 25_000
    assert len(scan_hits(text)) <= len(text)
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # what the bounded rules still do at the edges they bound
        ("sk-abcdefghijklmnopqrstuvwx", "sk-abcdefghijklmnopqrstuvwx"),  # no digit, no upper
        ("sk-sk-sk-Abcdefghij0123456789", "[REDACTED:openai-key]"),
        ("xsk-Abcdefghij0123456789klmn", "xsk-Abcdefghij0123456789klmn"),  # inside a word
        ("eyJabcdefgh.eyJabcdefgh.sig", "[REDACTED:jwt]"),
        ("eyJabcdefgh.eyJab.x eyJabcdefgh.eyJabcdefgh.", "eyJabcdefgh.eyJab.x [REDACTED:jwt]"),
        ("eyJabcdefghij eyJabcdefgh.eyJabcdefgh.s", "eyJabcdefghij [REDACTED:jwt]"),
        ("xeyJabcdefgh.eyJabcdefgh.sig", "xeyJabcdefgh.eyJabcdefgh.sig"),
        ("key=abcdefgh1 api_key=abcdefgh1", "key=abcdefgh1 api_key=[REDACTED:secret]"),
        (
            "api.key=abcdefgh1 secret__key: abcdefgh1",
            "api.key=[REDACTED:secret] secret__key: [REDACTED:secret]",
        ),
        ("token=$HOME/x TOKEN=os.environ PASS='%s'", "token=$HOME/x TOKEN=os.environ PASS='%s'"),
        ('password="$x" password="s3cr3tv4lue"', 'password="$x" password="[REDACTED:secret]"'),
    ],
)
def test_bounded_rules_redact_as_before(text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected
