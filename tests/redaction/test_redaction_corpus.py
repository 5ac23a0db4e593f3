"""Every planted secret, in every field shape a transcript keeps, is gone after redaction."""

from __future__ import annotations

import json

import pytest

from skillopt_core.redaction import PLACEHOLDER_RE, Redactor, configure, default_redactor, redact

from ._secrets import ASSIGNMENT_SHAPES, BARE_SHAPES, PASSWORDS, PEM, TOKENS


def _survivors(secret: str, out: str, window: int = 10) -> list[str]:
    """Windows of the secret that are still in the output (a partial leak counts)."""
    return [
        secret[i : i + window]
        for i in range(len(secret) - window + 1)
        if secret[i : i + window] in out
    ]


def _assert_gone(secret: str, out: str) -> None:
    assert secret not in out
    if len(secret) >= 16:
        assert not _survivors(secret, out), out
    assert PLACEHOLDER_RE.search(out), out


@pytest.mark.parametrize("shape", BARE_SHAPES)
@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_token_formats_redacted_bare(kind: str, shape: str) -> None:
    _assert_gone(TOKENS[kind], redact(shape.format(v=TOKENS[kind])))


@pytest.mark.parametrize("shape", ASSIGNMENT_SHAPES)
@pytest.mark.parametrize("value", sorted({**TOKENS, **PASSWORDS}.values()))
def test_values_redacted_in_every_field_shape(value: str, shape: str) -> None:
    _assert_gone(value, redact(shape.format(v=value)))


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_json_encoded_transcript_line(kind: str) -> None:
    line = json.dumps({"type": "user.message", "data": {"content": f"use {TOKENS[kind]} now"}})
    _assert_gone(TOKENS[kind], redact(line))


@pytest.mark.parametrize(
    "text",
    [PEM, f"key:\n{PEM}\ndone", json.dumps({"private_key": PEM}), PEM.rsplit("\n", 2)[0]],
    ids=["raw", "embedded", "json-escaped", "truncated"],
)
def test_private_key_blocks(text: str) -> None:
    out = redact(text)
    assert "[REDACTED:private-key]" in out
    for line in PEM.splitlines()[1:-1]:
        assert line[:16] not in out


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (TOKENS["github-pat-classic"], "github-token"),
        (TOKENS["github-fine-grained"], "github-token"),
        (TOKENS["openai-key"], "openai-key"),
        (TOKENS["anthropic-key"], "anthropic-key"),
        (TOKENS["aws-access-key-id"], "aws-access-key-id"),
        (TOKENS["google-api-key"], "google-api-key"),
        (TOKENS["slack-bot"], "slack-token"),
        (TOKENS["stripe-live"], "stripe-key"),
        (TOKENS["jwt"], "jwt"),
        (TOKENS["high-entropy"], "high-entropy"),
        (f"AWS_SECRET_ACCESS_KEY={TOKENS['aws-secret-access-key']}", "aws-secret-key"),
        (f'"access_token": "{TOKENS["jwt"]}"', "jwt"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization"),
        ("https://bob:pa55word@example.com/x", "url-credentials"),
        ("PASSWORD=hunter22", "secret"),
    ],
)
def test_placeholders_are_typed(text: str, kind: str) -> None:
    assert f"[REDACTED:{kind}]" in redact(text)


def test_keeps_the_context_around_a_secret() -> None:
    out = redact(f"export GITHUB_TOKEN={TOKENS['github-pat-classic']} && gh pr list")
    assert out == "export GITHUB_TOKEN=[REDACTED:github-token] && gh pr list"
    assert redact("Authorization: Bearer abcdefgh12345678") == (
        "Authorization: Bearer [REDACTED:authorization]"
    )
    assert redact("https://u:p4ss@host/x") == "https://[REDACTED:url-credentials]@host/x"


@pytest.mark.parametrize(
    "text",
    [
        "the token API_KEY=s3cr3tvalue9",
        "token secret=s3cr3tvalue9",
        "my key, password=s3cr3tvalue9",
        "the token --token s3cr3tvalue9",
    ],
)
def test_prose_before_an_assignment_does_not_hide_it(text: str) -> None:
    """A key word in prose ("the token ...") is no assignment, and must not shadow the real one."""
    _assert_gone("s3cr3tvalue9", redact(text))


def test_genuine_fixture_key_is_redacted() -> None:
    planted = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
    assert redact(f"My OpenAI key is {planted} — add it to .env") == (
        "My OpenAI key is [REDACTED:openai-key] — add it to .env"
    )


def test_extra_patterns_and_allowlist() -> None:
    r = Redactor(
        extra_patterns={"Internal Ticket": r"ACME-\d{6}", "acme": r"acme_pw\((?P<secret>[^)]+)\)"},
        allowlist=[TOKENS["github-oauth"]],
        allow_patterns=[r"AKIA[A-Z0-9]*EXAMPLE"],
    )
    text = (
        f"ACME-123456 acme_pw(opensesame) {TOKENS['github-oauth']} AKIAIOSFODNN7EXAMPLE "
        f"{TOKENS['github-server']}"
    )
    out = r.redact(text)
    assert "[REDACTED:internal-ticket]" in out
    assert "acme_pw([REDACTED:acme])" in out
    assert TOKENS["github-oauth"] in out
    assert "AKIAIOSFODNN7EXAMPLE" in out
    assert TOKENS["github-server"] not in out
    assert r.redact(out) == out


def test_report_counts_by_kind() -> None:
    result = Redactor().redact_with_report(
        f"{TOKENS['github-pat-classic']} {TOKENS['github-oauth']} PASSWORD=hunter22"
    )
    assert dict(result.counts) == {"github-token": 2, "secret": 1}
    assert result.total == 3


def test_entropy_rule_can_be_disabled() -> None:
    assert Redactor(entropy=False).redact(TOKENS["high-entropy"]) == TOKENS["high-entropy"]


def test_configure_installs_the_process_wide_redactor() -> None:
    before = default_redactor()
    try:
        configure(Redactor(extra_patterns={"codename": r"Project Nightjar"}))
        assert redact("about Project Nightjar") == "about [REDACTED:codename]"
    finally:
        configure(before)
    assert redact("about Project Nightjar") == "about Project Nightjar"


def test_every_anchor_passes_its_rules_gate() -> None:
    from skillopt_core._secret_rules import ASSIGNMENT, RULES

    for rule in (*RULES, ASSIGNMENT):
        for anchor in rule.anchors:
            assert any(g in anchor for g in rule.gate), (rule.kind, anchor)


def test_the_scan_gate_finds_every_literal() -> None:
    from skillopt_core._secret_rules import RULES, SCAN_GATE

    for rule in RULES:
        for literal in rule.literals:
            assert SCAN_GATE.search(f"x {literal} y"), (rule.kind, literal)


def test_the_scan_gate_agrees_with_plain_substring_tests() -> None:
    """Keyed on a rare character with a lookbehind, the gate still finds a literal anywhere."""
    from skillopt_core._secret_rules import RULES, SCAN_GATE

    literals = [lit for rule in RULES for lit in rule.literals]
    for literal in literals:
        for text in (literal, literal + "x", "x" + literal, literal[:-1], literal[1:]):
            expected = any(lit in text for lit in literals)
            assert (SCAN_GATE.search(text) is not None) == expected, (literal, text)
