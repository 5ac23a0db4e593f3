"""Properties: redact is idempotent, and a planted secret never survives or grows back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core.redaction import redact, redact_many

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, TOKENS

_FRAGMENTS = st.sampled_from(
    [
        *TOKENS.values(),
        *(shape.format(v=v) for shape in ASSIGNMENT_SHAPES[:6] for v in list(TOKENS.values())[:3]),
        "[REDACTED:github-token]",
        "[REDACTED:",
        "]",
        "=",
        ": ",
        '"',
        "'",
        "@",
        "://",
        "https://",
        "Bearer ",
        "password",
        "TOKEN",
        "-----BEGIN PRIVATE KEY-----",
        "\n",
        " ",
        "ordinary prose",
        "3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345",
    ]
)
_TEXTS = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(_FRAGMENTS, st.text(max_size=12)), max_size=12).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_redact_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(TOKENS)),
    st.sampled_from(BARE_SHAPES + ASSIGNMENT_SHAPES),
    st.text(max_size=60),
    st.text(max_size=60),
)
def test_planted_secret_never_survives(kind: str, shape: str, before: str, after: str) -> None:
    secret = TOKENS[kind]
    once = redact(f"{before}\n{shape.format(v=secret)}\n{after}")
    assert secret not in once
    assert secret not in redact(once)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, max_size=8))
def test_redact_many_equals_redacting_one_by_one(texts: list[str]) -> None:
    assert redact_many(texts) == [redact(t) for t in texts]
