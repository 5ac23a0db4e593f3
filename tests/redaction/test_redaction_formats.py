"""Named token formats and URL credentials: each found with its kind, its look-alikes left alone."""

from __future__ import annotations

import pytest

from skillopt_core.redaction import redact

from ._secrets import TOKENS

_PASSWORD = "Kp3mN8bV2cX7zL5q"


@pytest.mark.parametrize(
    ("url", "rest"),
    [
        (f"redis://:{_PASSWORD}@cache:6379", "@cache:6379"),
        (f"rediss://:{_PASSWORD}@cache.internal:6380/0", "@cache.internal:6380/0"),
        (f"amqp://:{_PASSWORD}@rabbit/vhost", "@rabbit/vhost"),
        (f"https://:{_PASSWORD}@git.example.com/org/repo.git", "@git.example.com/org/repo.git"),
    ],
)
def test_password_only_url_is_redacted(url: str, rest: str) -> None:
    scheme = url.split("://")[0]
    out = redact(f"connect to {url} now")
    assert out == f"connect to {scheme}://[REDACTED:url-credentials]{rest} now"


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        (f"https://x-access-token:{TOKENS['github-server']}@github.com/o/r", "github-token"),
        (f"https://oauth2:{TOKENS['gitlab-pat']}@gitlab.com/g/r.git", "gitlab-token"),
        (f"redis://default:{_PASSWORD}@cache:6379", "url-credentials"),
        (f"mongodb+srv://app:{_PASSWORD}@cluster0.mongodb.net/db", "url-credentials"),
    ],
)
def test_user_and_password_url_is_redacted(url: str, kind: str) -> None:
    out = redact(url)
    assert f"[REDACTED:{kind}]" in out
    assert url.split("@")[0].split(":")[-1] not in out


@pytest.mark.parametrize(
    "text",
    [
        "https://user@host/path",
        "ssh://git@github.com/org/repo.git",
        "s3://bucket/AWSLogs/123456789012/CloudTrail/us-east-1/2026/01/01/",
        "redis://cache:6379/0",
        "https://example.com:8080/users/@alice",
        "https://:@host/x",
    ],
)
def test_url_without_a_password_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("gitlab-pat", "gitlab-token"),
        ("gitlab-deploy", "gitlab-token"),
        ("gitlab-trigger", "gitlab-token"),
        ("gitlab-runner", "gitlab-token"),
        ("huggingface-token", "huggingface-token"),
        ("npm-token", "npm-token"),
        ("sendgrid-key", "sendgrid-key"),
        ("twilio-key", "twilio-key"),
        ("stripe-live", "stripe-key"),
        ("stripe-restricted", "stripe-key"),
        ("slack-bot", "slack-token"),
        ("google-api-key", "google-api-key"),
        ("anthropic-key", "anthropic-key"),
        ("openai-key", "openai-key"),
        ("openai-legacy", "openai-key"),
    ],
)
def test_token_format_has_its_kind(name: str, kind: str) -> None:
    secret = TOKENS[name]
    assert redact(f"export TOKEN_VALUE={secret}\n") == f"export TOKEN_VALUE=[REDACTED:{kind}]\n"
    assert redact(f"use {secret}, then") == f"use [REDACTED:{kind}], then"


def test_gitlab_pat_in_prose_at_the_minimum_length() -> None:
    assert redact("glpat-AbCdEfGhIj0123456789 leaked") == "[REDACTED:gitlab-token] leaked"


@pytest.mark.parametrize("prefix", ["xoxa-", "xoxp-", "xoxr-"])
def test_every_slack_token_prefix(prefix: str) -> None:
    assert redact(f"{prefix}1234567890-abcdefABCDEF") == "[REDACTED:slack-token]"


@pytest.mark.parametrize(
    "text",
    [
        "glpat",
        "GitLab tokens start with glpat- and deploy tokens with gldt-.",
        "glpat-short",
        "Use an sk_live key in production and sk_test in CI.",
        "the sk_live_ prefix",
        "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id='x')",
        "hf_abcdefghijklmnopqrstuvwxyzabcdefgh",
        "npm_config_cache=/tmp/npm npm_package_name=web",
        "npm_lifecycle_event",
        "See SKILL.md and SKILLS.md; SKIP the TASK list.",
        "Twilio account AC0123456789abcdef0123456789abcdef",
        "SG.mainframe and SG.1 in the table",
        "AIza is the Google key prefix",
    ],
)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert redact(text) == text
