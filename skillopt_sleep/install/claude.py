"""Claude Code: the plugin (marketplace add + install through the ``claude`` CLI) and the
user-level ``/skillopt-sleep`` command.

Claude Code 2.1 namespaces plugin commands (``/skillopt-sleep:skillopt-sleep``) and
``claude -p "/skillopt-sleep status"`` does not resolve that name, while a user-level
``~/.claude/commands/skillopt-sleep.md`` is ``/skillopt-sleep`` in both modes. So the plugin ships
no command of its own (no second, competing entry): it brings the skill that suggests the
workflow, the SessionEnd hook and the MCP server, and the installer adds the one command.
"""

from __future__ import annotations

import shutil

from skillopt_sleep.install.engine_command import render, shim_cli
from skillopt_sleep.install.layout import Homes, plugin_dir, template
from skillopt_sleep.install.specs import CommandSpec, FileSpec, Spec

MARKETPLACE = "skillopt-sleep"
PLUGIN = "skillopt-sleep@skillopt-sleep"
COMMAND = "user-command/skillopt-sleep.md"
NO_CLAUDE = (
    "`claude` is not on PATH, so the plugin (skill, SessionEnd hook, MCP server) was not "
    "installed; install Claude Code and run this again"
)


def plugin_commands(claude: str | None = None) -> list[Spec]:
    """``claude plugin marketplace add`` + ``install`` (each with its undo), when Claude is here."""
    executable = claude or shutil.which("claude")
    if executable is None:
        return []
    folder = str(plugin_dir("claude-code"))
    return [
        CommandSpec(
            "claude-code",
            "add the skillopt-sleep marketplace",
            (executable, "plugin", "marketplace", "add", folder),
            (executable, "plugin", "marketplace", "remove", MARKETPLACE),
        ),
        CommandSpec(
            "claude-code",
            "install the skillopt-sleep plugin",
            (executable, "plugin", "install", PLUGIN),
            (executable, "plugin", "uninstall", PLUGIN),
        ),
    ]


def specs(homes: Homes, *, plugin: bool = True, claude: str | None = None) -> list[Spec]:
    out: list[Spec] = [
        FileSpec(
            "claude-code",
            homes.claude / "commands" / "skillopt-sleep.md",
            render(template("claude-code", COMMAND)),
            engine=shim_cli()[0],
        )
    ]
    return out + (plugin_commands(claude) if plugin else [])
