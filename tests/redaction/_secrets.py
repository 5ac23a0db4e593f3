"""Planted secrets for the redaction tests, generated from a seed so no real key lives here."""

from __future__ import annotations

import random
import string

_RNG = random.Random(20260707)
_B62 = string.ascii_letters + string.digits


def random_token(n: int, alphabet: str = _B62, rng: random.Random = _RNG) -> str:
    """``n`` characters of ``alphabet``; from the letters and digits, at least one of each kind
    (as token rules that want mixed case expect)."""
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != _B62 or (
            any(c.isupper() for c in s)
            and any(c.islower() for c in s)
            and any(c.isdigit() for c in s)
        ):
            return s


def _b64url(n: int) -> str:
    return random_token(n, _B62 + "-_")


JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + _b64url(43)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(random_token(64, _B62 + "+/") for _ in range(4))
    + "\n-----END RSA PRIVATE KEY-----"
)

# Token formats recognisable on their own, wherever they appear. kind -> secret.
TOKENS: dict[str, str] = {
    "openai-key": "sk-proj-" + _b64url(48),
    "openai-legacy": "sk-" + random_token(48),
    "anthropic-key": "sk-ant-api03-" + _b64url(93) + "AA",
    "github-pat-classic": "ghp_" + random_token(36),
    "github-oauth": "gho_" + random_token(36),
    "github-server": "ghs_" + random_token(36),
    "github-fine-grained": "github_pat_" + random_token(22) + "_" + random_token(59),
    "aws-access-key-id": "AKIA" + random_token(16, string.ascii_uppercase + string.digits),
    "google-api-key": "AIza" + _b64url(35),
    "slack-bot": "xoxb-"
    + random_token(12, string.digits)
    + "-"
    + random_token(13, string.digits)
    + "-"
    + random_token(24),
    "stripe-live": "sk_live_" + random_token(24),
    "stripe-restricted": "rk_live_" + random_token(24),
    "jwt": JWT,
    "high-entropy": random_token(40),
    "aws-secret-access-key": random_token(40, _B62 + "+/"),
    "gitlab-pat": "glpat-" + _b64url(20),
    "gitlab-deploy": "gldt-" + _b64url(20),
    "gitlab-trigger": "glptt-" + random_token(40, "0123456789abcdef"),
    "gitlab-runner": "glrt-" + _b64url(20),
    "huggingface-token": "hf_" + random_token(34, string.ascii_letters),
    "npm-token": "npm_" + random_token(36),
    "sendgrid-key": "SG." + _b64url(22) + "." + _b64url(43),
    "twilio-key": "SK" + random_token(32, "0123456789abcdef"),
}
# Values that are only secret because of where they stand (assignment, header, URL).
PASSWORDS: dict[str, str] = {
    "password": "Tr0ub4dor&3",
    "short-hex-token": random_token(24, "0123456789abcdef"),
    "passphrase-ish": "blue-Horse-battery-7",
}

# Field shapes: ``{v}`` is the secret value.
ASSIGNMENT_SHAPES: tuple[str, ...] = (
    "export API_KEY={v}",
    "GITHUB_TOKEN={v}",
    "DB_PASSWORD={v}\nDEBUG=1",
    'SECRET_KEY="{v}"',
    "client_secret: {v}",
    'client_secret: "{v}"',
    "  password: '{v}'",
    '{{"api_key": "{v}", "user": "alice"}}',
    '{{"auth": {{"access_token": "{v}"}}}}',
    'token = "{v}"',
    "config.api_key = '{v}'",
    "aws_secret_access_key = {v}",
    "mysql --user=root --password={v} db",
    "gh auth login --with-token {v}",
    "--api-key {v}",
    "Authorization: Bearer {v}",
    "curl -H 'Authorization: token {v}' https://api.github.com/user",
    '"headers": {{"Authorization": "Bearer {v}"}}',
    "x-api-key: {v}",
    "git remote add origin https://alice:{v}@github.com/org/repo.git",
    "postgres://app:{v}@db.internal:5432/prod",
)
BARE_SHAPES: tuple[str, ...] = (
    "{v}",
    "Here is my key {v} please use it.",
    "`{v}`",
    "key={v};other=1",
    '"{v}"',
    "(see {v})",
    "line one\n{v}\nline three",
    "ERROR invalid credential '{v}' for request",
)
