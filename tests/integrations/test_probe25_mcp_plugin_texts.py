"""What the shipped skills and commands tell an agent to run never adopts on its own.

A night's ``run`` adopts its proposal at once when the user's config opts in (``night.auto_adopt``);
every text that has an agent start a run therefore passes ``--no-auto-adopt``, as the MCP tools
force it off. Failed before: the Copilot skill's CLI ``run`` line had no ``--no-auto-adopt``, so
a night the agent started adopted under such a config, against the skill's own "only when the
user explicitly asks".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
PLACEHOLDER = "{{SKILLOPT_SLEEP}}"
SHIPPED = sorted(
    p for p in PLUGINS.rglob("*.md") if p.name != "README.md" and PLACEHOLDER in p.read_text()
)


def test_the_texts_that_name_the_engine_are_found() -> None:
    names = {p.relative_to(PLUGINS).parts[0] for p in SHIPPED}
    assert names == {"claude-code", "codex", "copilot"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(PLUGINS)))
def test_every_run_an_agent_is_told_to_start_passes_no_auto_adopt(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    runs = re.findall(rf"{re.escape(PLACEHOLDER)} run\b[^\n`]*", text)
    generic = re.findall(rf"{re.escape(PLACEHOLDER)} <action>[^\n`]*", text)
    assert runs or generic, f"{path} names no run"
    for line in runs:
        assert "--no-auto-adopt" in line, line
    if generic:
        assert "add `--no-auto-adopt` to `run`" in text
