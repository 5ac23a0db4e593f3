"""Codex starts an MCP server with a minimal environment: every variable a backend reads must be
in the block's ``env_vars``. Before, an Azure user's night started from Codex failed with "set
AZURE_OPENAI_ENDPOINT" (only the key was passed; found by a review)."""

from __future__ import annotations

import re
from pathlib import Path

import skillopt_core.backends
from skillopt_sleep.install.codex import PASSED_ENV

_ENV_NAME = re.compile(r'"((?:OPENAI|AZURE|ANTHROPIC|SKILLOPT)_[A-Z0-9_]+)"')


def test_every_variable_a_backend_reads_reaches_the_codex_mcp_server() -> None:
    root = Path(skillopt_core.backends.__file__).parent
    read = {name for path in root.rglob("*.py") for name in _ENV_NAME.findall(path.read_text())}
    assert "AZURE_OPENAI_ENDPOINT" in read  # the scan still finds what the backends read
    assert sorted(read - set(PASSED_ENV)) == []
