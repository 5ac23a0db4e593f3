"""Property tests on generated text that mixes secrets of every kind with prose and code.

Redaction is idempotent on such text, and a secret that redaction removes when it stands alone
in its shape (bare, or in an assignment, header or URL) is removed wherever it stands among
whole other pieces. Derandomized, so the examples are fixed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_core.redaction import redact, redact_many

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, PASSWORDS, TOKENS

_SETTINGS = settings(max_examples=150, derandomize=True, deadline=None, database=None)
_SECRETS = {**TOKENS, **PASSWORDS}
_PROSE = [
    "Please fix the failing test in src/app.py",
    "the token expired again",
    "password reset flow",
    "key = 'name'",
    "api_key = os.environ['API_KEY']",
    "token = self.token",
    "export PATH=$HOME/bin:$PATH",
    "commit 3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "see https://example.com/docs?q=1",
    "[REDACTED:secret]",
    "https://user@host/path",
    "Bearer",
    "-----BEGIN PRIVATE KEY-----",
    "eyJ",
    "sk-",
    "ünïcödé İ K ß",
    "\\n\\n",
    "=",
    ":",
]
_SEPARATORS = [" ", "\n", "\n\n", " | ", "; ", ", ", "\t", " (", ") "]


@st.composite
def _mixed(draw: st.DrawFn) -> tuple[str, list[str]]:
    """Text of whole pieces (prose, or a secret in one of its shapes) and the secrets in it
    that redaction removes from their piece alone."""
    pieces: list[str] = []
    secrets: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            pieces.append(draw(st.sampled_from(_PROSE)))
            continue
        kind = draw(st.sampled_from(sorted(_SECRETS)))
        shapes = ASSIGNMENT_SHAPES if kind in PASSWORDS else BARE_SHAPES + ASSIGNMENT_SHAPES
        piece = draw(st.sampled_from(shapes)).format(v=_SECRETS[kind])
        pieces.append(piece)
        if _SECRETS[kind] not in redact(piece):
            secrets.append(_SECRETS[kind])
    seps = [draw(st.sampled_from(_SEPARATORS)) for _ in pieces]
    return "".join(p + s for p, s in zip(pieces, seps, strict=True)), secrets


@_SETTINGS
@given(_mixed())
def test_mixed_text_redacts_idempotently_and_completely(mixed: tuple[str, list[str]]) -> None:
    text, secrets = mixed
    once = redact(text)
    assert redact(once) == once
    for secret in secrets:
        assert secret not in once


@_SETTINGS
@given(st.lists(_mixed(), min_size=2, max_size=5))
def test_a_batch_redacts_each_text_as_alone(batch: list[tuple[str, list[str]]]) -> None:
    texts = [text for text, _ in batch]
    assert redact_many(texts) == [redact(t) for t in texts]


def test_authorization_before_an_assignment_leaves_no_value() -> None:
    secret = PASSWORDS["passphrase-ish"]
    assert secret not in redact(f'Authorization: SECRET_KEY="{secret}"')
    assert secret not in redact(f"authorization = api_key='{secret}'")


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ('"Authorization": "Basic dXNlcjpwYXNzd29yZDE="', "dXNlcjpwYXNzd29yZDE="),
        ('curl -H "Authorization: Basic YWJjZGVmZ2hpams=" https://x.io', "YWJjZGVmZ2hpams="),
        ("Authorization: Bearer abc_def_ghi_jkl=", "abc_def_ghi_jkl="),
        ("Authorization: token_value_with_underscores_1234", "token_value_with_underscores_1234"),
    ],
)
def test_authorization_header_values_are_still_redacted(text: str, token: str) -> None:
    assert token in text and token not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "In the Makefile, set API_TOKEN:=$GITHUB_TOKEN before `make release`.",
        "SECRET_KEY:=os.environ['X']",
        "ACCESS_TOKEN:=%ACCESS_TOKEN%",
    ],
)
def test_a_refused_value_after_colon_equals_is_not_retried_as_equals_value(text: str) -> None:
    """The separator backtracked from ':=' to ':' and redacted '=$VAR' as a secret."""
    assert redact(text) == text
