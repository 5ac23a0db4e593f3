"""The anchor gate (only anchors whose gate word is in the text are searched) is exact: the
same output as searching every anchor of every rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core import redaction
from skillopt_core._secret_rules import Rule

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
    ]
)
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=16).map("".join)


def _every_anchor(rule: Rule, words: frozenset[str]) -> tuple[str, ...]:
    return rule.anchors


@settings(max_examples=600, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=4))
def test_anchor_gate_changes_nothing(texts: list[str]) -> None:
    fast = [redaction.redact(t) for t in texts] + [redaction.redact_many(texts)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(redaction, "live_anchors", _every_anchor)
        slow = [redaction.redact(t) for t in texts] + [redaction.redact_many(texts)]
    assert fast == slow
