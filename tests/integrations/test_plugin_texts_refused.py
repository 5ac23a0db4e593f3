"""What the harness texts tell an agent (and the user) to run: every engine command they name
exists with the flags they show, and each harness knows `refused`.

`skillopt-sleep refused` lists the edits no night may propose again; `refused forget` lifts a
refusal, undoing the user's own decision, so it is the user's to type, like `adopt`: no MCP tool
forgets, Codex never approves one, and every text leaves forgetting to the user, even when a
night's message ("nothing new to try: ...") names the command. Failed before: no plugin text
named `refused`, so an agent whose night learned nothing could not point the user at the list.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest
import typer
from mcp import Client

from skillopt_sleep.cli import app as sleep_app
from skillopt_sleep.install import Homes, install
from skillopt_sleep.install.codex import PRE_APPROVED
from skillopt_sleep.install.engine_command import shell_command, shim_cli
from skillopt_sleep.mcp import build_server
from tests.integrations.test_codex_approvals import codex_asks

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
PLACEHOLDER = "{{SKILLOPT_SLEEP}}"
TEXTS = sorted(PLUGINS.rglob("*.md"))
COMMAND = PLUGINS / "claude-code" / "user-command" / "skillopt-sleep.md"
# what each agent reads, and the words in it that keep `refused forget` the user's
AGENT_TEXTS = {
    "claude-code/user-command/skillopt-sleep.md": "`refused forget` only because the user typed",
    "claude-code/skills/skillopt-sleep/SKILL.md": "never adopt or forget a refused edit on your own",
    "codex/skills/skillopt-sleep/SKILL.md": "never adopt or forget a refused edit on your own",
    "copilot/skills/skillopt-sleep/SKILL.md": "only when the user explicitly asks (never because",
    "copilot/copilot-instructions.snippet.md": "only they lift one",
}
FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def _commands(text: str) -> list[str]:
    """The engine command lines a text shows: code spans and indented lines that start with the
    engine (by placeholder or name) or the slash command, placeholder replaced by the name."""
    starts = (f"{PLACEHOLDER} ", "skillopt-sleep ", "/skillopt-sleep ")
    found = [s for s in re.findall(r"`([^`\n]+)`", text) if s.startswith(starts)]
    found += [
        line.strip()
        for line in text.splitlines()
        if line.startswith("    ") and line.strip().startswith(starts)
    ]
    return [
        line.replace(PLACEHOLDER, "skillopt-sleep").removeprefix("/").split(" #", 1)[0]
        for line in found
    ]


def _actions(line: str) -> list[list[str]]:
    """The words after the engine's name; `/skillopt-sleep [a|b]` shows one action per choice,
    a `<placeholder>` (or the slash command's `$ARGUMENTS`) none."""
    words = shlex.split(line.replace("<", "'<").replace(">", ">'"))[1:]
    if not words or words[0].startswith(("<", "$")):
        return []
    if words[0].startswith("["):
        return [[choice] for choice in words[0].strip("[]").split("|")]
    return [words]


def _resolve(words: list[str]) -> tuple[Any, list[str]]:
    command: Any = typer.main.get_command(sleep_app)
    path: list[str] = []
    for word in words:
        if word not in getattr(command, "commands", {}):
            break
        command = command.commands[word]
        path.append(word)
    return command, path


def _flags(command: Any) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def _tools() -> dict[str, Any]:
    async def go() -> list[Any]:
        async with Client(build_server()) as client:
            return (await client.list_tools()).tools

    return {t.name: t for t in anyio.run(go)}


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(PLUGINS)))
def test_every_engine_command_a_plugin_text_names_exists_with_its_flags(path: Path) -> None:
    for line in _commands(path.read_text(encoding="utf-8")):
        for words in _actions(line):
            command, found = _resolve(words)
            assert found, f"{path.name}: `{line}` names no skillopt-sleep command"
            is_group = hasattr(command, "commands")
            assert not is_group or getattr(command, "invoke_without_command", False), line
            missing = set(FLAG.findall(" ".join(words))) - _flags(command)
            assert not missing, f"{path.name}: `{line}` shows {sorted(missing)}"


def test_the_texts_name_refused_and_refused_forget_as_cli_commands() -> None:
    named = {
        " ".join(_resolve(words)[1])
        for path in TEXTS
        for line in _commands(path.read_text(encoding="utf-8"))
        for words in _actions(line)
    }
    assert {"refused", "refused forget", "adopt", "status"} <= named


def test_the_mcp_tools_a_text_lists_are_the_servers_and_include_refused() -> None:
    tools = _tools()
    lists = [
        name.strip().strip(".")
        for path in TEXTS
        for listed in re.findall(r"MCP tools \(([^)]*)\)", path.read_text(encoding="utf-8"))
        for name in listed.split(",")
        if name.strip().strip(".")
    ]
    assert "refused" in lists and set(lists) <= set(tools), sorted(set(lists) - set(tools))


@pytest.mark.parametrize("relative", sorted(AGENT_TEXTS))
def test_each_agent_text_offers_refused_and_leaves_forgetting_to_the_user(relative: str) -> None:
    raw = (PLUGINS / relative).read_text(encoding="utf-8")
    text = " ".join(raw.split())
    assert re.search(r"`(?:\{\{SKILLOPT_SLEEP\}\} |/skillopt-sleep )?refused\b", text), relative
    assert "refused forget" in text and AGENT_TEXTS[relative] in text
    # a night that came up only with refused edits: its paragraph (or bullet) says to show the
    # refused edits and leave forgetting to the user
    (told,) = [p for p in re.split(r"\n\n|\n- ", raw) if '"nothing new to try"' in p]
    assert "refused`" in told, told  # `refused`, `{{SKILLOPT_SLEEP}} refused`, ...
    assert "user" in told and "forget" in told, told


def test_the_slash_command_handles_refused_and_forgets_only_when_typed() -> None:
    text = COMMAND.read_text(encoding="utf-8")
    (hint,) = re.findall(r'argument-hint: "\[([\w|-]+)\]', text)
    (description,) = re.findall(r'description: "([^"]+)"', text)
    assert "refused" in hint.split("|") and "refused" in description
    run_as_typed = next(line for line in text.split("\n- ") if "<action> <other options>" in line)
    assert (
        "`refused`" in run_as_typed and "`adopt`" in run_as_typed and "--source" not in run_as_typed
    )
    rule = next(line for line in text.split("\n- ") if line.startswith("`adopt`"))
    assert "`refused forget`" in rule and "never adopt or forget" in " ".join(rule.split())


def test_no_agent_tool_forgets_and_codex_lists_refused_without_asking() -> None:
    """Codex's `codex exec` refuses every tool that asks; `refused` is a read it may run, and
    forgetting has no tool at all, so it stays the user's terminal command, as adopt is there."""
    tools = _tools()
    assert "refused" in tools and not any("forget" in name for name in tools)
    assert not codex_asks(tools["refused"].annotations)
    assert "refused" not in PRE_APPROVED and not any("forget" in name for name in PRE_APPROVED)
    skill = " ".join((PLUGINS / "codex/skills/skillopt-sleep/SKILL.md").read_text().split())
    assert f"`{PLACEHOLDER} refused forget ID --project <repository root>` to run" in skill


def test_the_installed_shims_name_refused_with_the_engines_path(tmp_path: Path) -> None:
    homes = Homes.from_env({}, tmp_path / "home")
    install(["all"], homes=homes, claude_plugin=False)
    engine = shell_command(shim_cli())
    command = (homes.claude / "commands" / "skillopt-sleep.md").read_text(encoding="utf-8")
    codex = (homes.agents_skills / "skillopt-sleep" / "SKILL.md").read_text(encoding="utf-8")
    copilot = (homes.copilot / "skills" / "skillopt-sleep" / "SKILL.md").read_text(encoding="utf-8")
    assert f"`{engine} refused`, show it" in command and "|refused|" in command
    for skill in (codex, copilot):
        flat = " ".join(skill.split())
        assert f"{engine} refused --project" in flat and f"{engine} refused forget ID" in flat
        assert PLACEHOLDER not in skill
