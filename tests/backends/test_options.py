"""Backend options: a misspelt key or role table is refused with a suggestion, never ignored."""

from __future__ import annotations

from typing import Any

import pytest

from skillopt_core.backends import BACKENDS, _load_builtin_backends
from skillopt_core.backends.options import known_keys
from skillopt_core.backends.runtime import open_roles
from skillopt_core.errors import UsageError


def _open(optimizer: str, target: str, options: dict[str, Any]) -> None:
    open_roles(optimizer, target, options, check_health=False)


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("openai:m", {"api_key": "k", "timeot": 5}, "unknown option 'timeot' for openai"),
        ("anthropic:m", {"api_key": "k", "base_ur": "x"}, "(did you mean 'base_url'?)"),
        ("claude-cli", {"optimizer": {"executabel": "x"}}, "unknown optimizer option"),
        ("codex-cli", {"max_retrys": 1}, "(did you mean 'max_retries'?)"),
        ("handoff", {"dri": "/tmp"}, "(did you mean 'dir'?)"),
        ("mock", {"optimzer": {"timeout": 5}}, "did you mean [backends.options.optimizer]"),
    ],
)
def test_an_unknown_option_is_a_usage_error(
    spec: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        _open(spec, spec, options)
    assert message in str(caught.value)


def test_a_shared_option_needs_only_one_role_to_read_it() -> None:
    _open("openai:m", "anthropic:m", {"api_key": "k", "api": "responses", "auth_token": "t"})
    _open("openai:m", "mock", {"api_key": "k", "profile": "p", "wrong_rate": 0})
    _open("claude-cli", "claude-cli", {"env": {"A": "1"}, "seed": 3, "concurrency": 2})


BUILT_IN = (
    "openai",
    "azure-openai",
    "anthropic",
    "handoff",
    "claude-cli",
    "codex-cli",
    "copilot-cli",
)


def test_every_built_in_real_backend_declares_its_options() -> None:
    _load_builtin_backends()
    assert set(BUILT_IN) <= set(BACKENDS.names())
    assert [n for n in BUILT_IN if known_keys(n) is None] == []


def test_a_role_table_overrides_the_shared_options_instead_of_replacing_them() -> None:
    from skillopt_core.backends.runtime import role_options

    options = {
        "timeout": 30,
        "concurrency": 4,
        "target": {"base_url": "http://127.0.0.1:9", "timeout": 5},
    }
    assert role_options(options, "target") == {
        "timeout": 5,
        "concurrency": 4,
        "base_url": "http://127.0.0.1:9",
    }
    assert role_options(options, "optimizer") == {"timeout": 30, "concurrency": 4}
