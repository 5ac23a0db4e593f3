"""The redaction gates are exact: searching only the anchors whose gate word is in the text,
and testing literals only near the scan gate's hits, give the same output as searching every
anchor and testing every literal on the whole text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core import redaction
from skillopt_core._secret_rules import RULES, SCAN_GATE, Rule

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, TOKENS

_WORDS = ["secret", "token", "passw", "passphrase", "pass", "key", "credential", "Bearer",
          "Authorization", "api_key", "PASSWORD", "Token", "KEY", "--password", "passwd"]  # fmt: skip
_FRAGMENTS = st.sampled_from(
    [
        *_WORDS,
        *TOKENS.values(),
        *(shape.format(v=v) for shape in BARE_SHAPES + ASSIGNMENT_SHAPES for v in TOKENS.values()),
        "=",
        ": ",
        " = ",
        '"',
        "'",
        "\n",
        " ",
        "s3cr3t-Value_123",
        "hunter22",
        "[REDACTED:secret]",
        "ordinary prose",
        "https://user:pa55word@example.com/x",
        "hooks.slack.com/services/",
        "-----BEGIN",
        "sk-",
        "ghp_",
        "AKIA",
        "eyJ",
        "xox",
        "://",
    ]
)
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=24).map("".join)


def _every_anchor(rule: Rule, words: frozenset[str]) -> tuple[str, ...]:
    return rule.anchors


def _whole_text(text: str) -> str:
    return text if SCAN_GATE.search(text) else ""


@settings(max_examples=600, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=4))
def test_gates_change_nothing(texts: list[str]) -> None:
    fast = [redaction.redact(t) for t in texts] + [redaction.redact_many(texts)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "live_anchors", _every_anchor)
        patch.setattr(redaction, "scan_hits", _whole_text)
        slow = [redaction.redact(t) for t in texts] + [redaction.redact_many(texts)]
    assert fast == slow


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
def test_a_literal_is_near_a_hit_exactly_when_it_is_in_the_text(text: str) -> None:
    hits = redaction.scan_hits(text)
    for rule in RULES:
        for literal in rule.literals:
            assert (literal in hits) == (literal in text), literal
