"""An argument's description says what its edge values do to the night.

Failed before: ``max_calls`` read "Hard limit on model calls." with a minimum of 0, while the
engine takes 0 as no limit at all (``budget.max_calls``): an agent passing 0 for a night without
model calls started one with no cap, not even the configured 400.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from skillopt_sleep.engine import load_config
from skillopt_sleep.mcp import build_server
from skillopt_sleep.mcp._tools_night import night_overrides


def _tools() -> dict[str, Any]:
    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.list_tools()

    return {t.name: t for t in anyio.run(go).tools}


def test_max_calls_says_that_zero_is_no_limit(tmp_path: Path) -> None:
    tools = _tools()
    for name in ("run", "dry_run"):
        schema = tools[name].input_schema["properties"]["max_calls"]
        assert "0 means NO limit" in schema["description"], schema
    config = load_config(tmp_path, night_overrides(None, None, None, 0, None))
    assert config.budget.max_calls == 0  # what the engine reads as "no limit"
