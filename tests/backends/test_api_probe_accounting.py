"""Hostile-network probes of what the API backends count: prices that would switch the USD
budget off, usage figures from the harness CLIs, and the health check before a night (retried
while its failure may pass; its ping metered like any call)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from skillopt_core.backends import BackendUnavailable, BudgetExceeded, Usage
from skillopt_core.backends.budget import Budget
from skillopt_core.backends.pricing import PriceTable, price_for
from skillopt_core.backends.runtime import Roles, open_roles
from skillopt_core.errors import UsageError
from tests.backends._raw import CHAT_OK, SPECS, RawServer, http
from tests.backends.test_api_probe_network import _an

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib


# --- prices that would switch the USD budget off ------------------------------------------------


@pytest.mark.parametrize("value", ["abc", "-5", "nan", "inf"])
def test_a_price_option_that_is_no_price_is_a_usage_error(value: str) -> None:
    with pytest.raises(UsageError, match="price_input"):
        price_for("openai", "gpt-4o", {"price_input": value})


@pytest.mark.parametrize("value", ["nan", "-1.0", "inf"])
def test_a_price_table_entry_that_is_no_price_is_refused(value: str) -> None:
    data = tomllib.loads(f'[models]\n"m*" = {{ input = {value}, output = 1.0 }}\n')
    with pytest.raises(UsageError, match="m\\*"):
        PriceTable.from_mapping(data)


def test_a_nan_price_cannot_switch_the_usd_budget_off() -> None:
    """With a NaN price every cost is NaN, and ``NaN > max_usd`` is false: no limit at all."""
    with pytest.raises(UsageError):
        open_roles(
            "openai:gpt-4o",
            "openai:gpt-4o",
            {"base_url": "http://127.0.0.1:9/v1", "api_key": "k", "price_output": "nan"},
            Budget(max_usd=0.01),
            check_health=False,
        )


def test_an_unknown_model_is_priced_at_the_default_not_free() -> None:
    price = price_for("openai", "some-local-model", {})
    assert price.input > 0 and price.output > 0


# --- the harness CLIs' usage summaries are read the same way ---------------------------------------


@pytest.mark.parametrize("figure", ['"abc"', "-7", "1e300", "2.5"])
def test_cli_usage_that_is_no_token_count_is_unknown_not_a_crash(figure: str) -> None:
    from skillopt_core.backends.cli import claude, codex

    raw = json.loads(f'{{"input_tokens": {figure}, "output_tokens": 3}}')
    assert claude._usage(raw) == Usage()
    events = [{"type": "turn.completed", "usage": raw}]
    assert codex._usage(events) == Usage()


def test_copilot_usage_that_is_no_token_count_is_unknown(tmp_path: Path) -> None:
    from skillopt_core.backends.cli import copilot

    summary = {"modelMetrics": {"m": {"usage": {"inputTokens": "lots", "outputTokens": -1}}}}
    path = tmp_path / "usage.json"
    path.write_text(json.dumps(summary), encoding="utf-8")
    assert copilot._usage(path) == Usage()
    summary["modelMetrics"]["m"]["usage"] = {"inputTokens": 10, "outputTokens": 2}
    path.write_text(json.dumps(summary), encoding="utf-8")
    assert copilot._usage(path) == Usage(10, 2)


# --- the health check before a night ----------------------------------------------------------------

MODELS = '{"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "x"}]}'
AN_MODELS = '{"data": [{"id": "claude-x", "type": "model", "display_name": "X", "created_at": "2025-01-01T00:00:00Z"}], "has_more": false, "first_id": "claude-x", "last_id": "claude-x"}'


def _open(server: RawServer, spec: str, sleeps: list[float], **opts: str) -> Roles:
    base = f"http://127.0.0.1:{server.port}" + ("/v1" if spec.startswith("openai") else "")
    options = {"base_url": base, "api_key": "sk-test-key-0123456789", "timeout": "2", **opts}
    return open_roles(spec, spec, options, sleep=sleeps.append)


@pytest.mark.parametrize("spec", SPECS)
def test_a_passing_overload_at_the_health_check_is_retried_not_fatal(
    serve: Callable[..., RawServer], spec: str
) -> None:
    sleeps: list[float] = []
    listing = MODELS if spec.startswith("openai") else AN_MODELS
    server = serve(http(503, "{}"), http(429, "{}", Retry_After="2"), http(200, listing))
    r = _open(server, spec, sleeps)
    assert server.hits == 3 and sleeps[-1] == 2.0
    assert r.ledger.totals.calls == 0  # listing models is free


@pytest.mark.parametrize("spec", SPECS)
def test_a_health_check_that_keeps_failing_is_still_fatal_and_says_why(
    serve: Callable[..., RawServer], spec: str
) -> None:
    server = serve(http(503, "{}"))
    with pytest.raises(BackendUnavailable, match=r"health check failed.*503"):
        _open(server, spec, [], max_retries="2")
    assert server.hits == 3


@pytest.mark.parametrize("spec", SPECS)
def test_a_rejected_key_at_the_health_check_is_not_retried(
    serve: Callable[..., RawServer], spec: str
) -> None:
    server = serve(http(401, '{"error": {"message": "bad key"}}'))
    with pytest.raises(BackendUnavailable, match="401"):
        _open(server, spec, [])
    assert server.hits == 1


@pytest.mark.parametrize("spec", SPECS)
def test_the_health_check_ping_is_a_call_in_the_ledger(
    serve: Callable[..., RawServer], spec: str
) -> None:
    """A server without a model list is pinged with a real completion: it is billed, so counted."""
    reply = CHAT_OK if spec.startswith("openai") else _an('{"input_tokens": 5, "output_tokens": 1}')
    server = serve(http(404, '{"error": {"message": "no such route"}}'), http(200, reply))
    r = _open(server, spec, [])
    assert server.hits == 2
    (record,) = r.ledger.records
    assert record.purpose == "ping" and record.ok and record.attempts == 1
    assert r.ledger.totals.calls == 1


def test_the_health_check_ping_respects_the_call_budget(serve: Callable[..., RawServer]) -> None:
    server = serve(http(404, '{"error": {"message": "no such route"}}'), http(200, CHAT_OK))
    options = {"base_url": f"http://127.0.0.1:{server.port}/v1", "api_key": "k-0123456789"}
    with pytest.raises(BudgetExceeded):
        open_roles("openai:gpt-4o", "openai:gpt-4o", options, Budget(max_calls=0))
    assert server.hits == 1  # the listing only: the ping never left
