"""Ordinary code and prose pass through unchanged."""

from __future__ import annotations

import pytest

from skillopt_core.redaction import redact

PYTHON_SOURCE = """\
import os
from dataclasses import dataclass

import tiktoken


@dataclass(frozen=True)
class Settings:
    api_key: str | None = None
    max_tokens: int = 4096
    token_budget: int = 120_000


def load_settings() -> Settings:
    api_key = os.environ["OPENAI_API_KEY"]
    token = os.environ.get("GITHUB_TOKEN", "")
    password = getpass.getpass("Password: ")
    headers = {"Authorization": f"Bearer {token}"}
    secret_key = settings.SECRET_KEY
    password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
    tokens = tiktoken.get_encoding("cl100k_base").encode(text)
    return Settings(api_key=api_key, max_tokens=len(tokens))


class TokenBucketRateLimiterWithExponentialBackoff2:
    def refill_tokens_after_interval(self, interval_seconds: float) -> None:
        self.tokens = min(self.capacity, self.tokens + interval_seconds * self.rate)
"""

PROSE_AND_LOGS = [
    PYTHON_SOURCE,
    "commit 3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345\nAuthor: Alice <alice@example.com>",
    "Merge 9fceb02d0ae598e95dc970b74767f19372d61af8 into a1b2c3d",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "session 7191b837-f6fe-41a3-8f7b-14b847b4c7a7 and request 01a1fdf8-82af-7922-a4c6-9c14c4fd635e",
    "/home/dev/webapp/node_modules/@typescript-eslint/eslint-plugin/dist/configs/recommended.js",
    "/Users/JohnSmith/Library/Application-Support/Code2/User/workspaceStorage/abc/chatSessions",
    r"C:\Users\dev\AppData\Roaming\Code - Insiders\User\workspaceStorage",
    "see https://github.com/microsoft/SkillOpt/pull/191 and https://example.com:8080/a?b=c#d",
    "ssh git@github.com and mailto:bob@example.org",
    "The base64 string aGVsbG8gd29ybGQ= decodes to hello world; SGVsbG8= is Hello.",
    "integrity sha512-Q5mRq7zEuJbfVgNI3TCmV3qmC4mNEXLAbY+VT+hlR3U0KfLqyQ1y7rjkeZk0T2N0y6rw+ug2Wqhy1lh7J+Q7A==",
    "The password must be at least 12 characters. Token: see the docs.",
    "Set SECRET_KEY in your environment, then rotate the API key monthly.",
    "max_tokens: 4096\ntokens_used: 1234\ntoken_type: bearer\npassword: optional",
    "export PATH=/usr/local/bin:$PATH && export TOKEN=$GITHUB_TOKEN",
    "pytest tests/harvest/test_copilot_cli.py::test_tool_calls_are_paired -q",
    "pip install scikit-learn sentence-transformers==3.0.1",
    "Use a Bearer token in the Authorization header (Authorization: Bearer <token>).",
    "the risk-assessment-framework-2024-v1 and disk-usage-report-2025-final-v2 docs",
    "AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor2 is a class",
    "test_redaction_leaves_ordinary_code_alone_even_when_names_are_long_42",
    "password = None\ntoken = self.token\napi_key = config.openai.api_key",
    "| tool | calls | errors |\n|---|---|---|\n| bash | 12 | 1 |",
    "",
]


@pytest.mark.parametrize("text", PROSE_AND_LOGS, ids=range(len(PROSE_AND_LOGS)))
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_redaction_sources_themselves_are_not_mangled() -> None:
    from pathlib import Path

    source = Path(__file__).with_name("test_redaction_properties.py").read_text(encoding="utf-8")
    assert redact(source) == source


# Issue 13: public strings the entropy rule used to take for secrets.
PUBLIC_LOOKALIKES = [
    "aws s3 ls s3://acme-logs/AWSLogs/123456789012/CloudTrail/us-east-1/2024/01/15/",
    "s3://acme-prod-logs/AWSLogs/123456789012/elasticloadbalancing/eu-west-1/2024/03/01/x.log",
    "cp /sdcard/DCIM/Camera/PXL_20240315_142233917.RAW-02.ORIGINAL.dng ./",
    "PXL_20240315_142233917_NIGHT_PORTRAIT_01_COVER_BOKEH_Xyz9.jpg",
    "IMG_20231224_183012_HDR_BURST001_COVER_Qx7Zk2Lm9Pv4Rt8W.jpg",
    "github.com/stretchr/testify v1.8.4 h1:CcVxjf3Q8PM0mHUKJCdn+eZZtm5yQwehR5yeSVQQcUk=",
    "golang.org/x/sys v0.15.0/go.mod h1:/VUhepiaJMQUp4+oa/7Zr1D23ma6VTLIYjOOTFZPUcA=",
    ".Button_primary__3xK9qZ7mP2nR8sT4vW6yB1cD{color:red}.Nav_root__Xk7Yq8bZ2mNp4Qr6StUv9Wx,.x{}",
    '<span class="sc-bdVaJa kAkgYP Typography_body1__Ab12Cd34Ef56Gh78Ij90KlMnOp">',
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDhA6HtLbyR5EyOUp4dqN1K7GbPz3w5w2xTq dev@host",
    "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7o",
]


@pytest.mark.parametrize("text", PUBLIC_LOOKALIKES)
def test_public_lookalikes_are_kept(text: str) -> None:
    assert redact(text) == text


def test_a_random_key_with_slashes_is_still_redacted() -> None:
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY9"
    assert key not in redact(f"the key {key} leaked")
