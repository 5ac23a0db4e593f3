"""Codex: the ``skillopt-sleep`` user skill, and the MCP server in ``$CODEX_HOME/config.toml``.

The skill goes to ``~/.agents/skills`` (what current Codex reads). Codex 0.169 also reads the
legacy ``$CODEX_HOME/skills``, so writing both would list the skill twice; the legacy folder is
used only for a Codex older than 0.95, which reads nothing else. The MCP server is a marked block
in ``config.toml`` so the user's own settings and comments are never rewritten; it approves the
tools that only stage (:data:`PRE_APPROVED`), which an older Codex ignores.
"""

from __future__ import annotations

import re
import shutil

import tomli_w

from skillopt_sleep.install._proc import VERSION_TIMEOUT_S, run_bounded
from skillopt_sleep.install.engine_command import render, shim_cli, shim_mcp
from skillopt_sleep.install.layout import Homes, template
from skillopt_sleep.install.specs import BlockSpec, FileSpec, Spec

SKILL = "skills/skillopt-sleep/SKILL.md"
FIRST_WITH_AGENTS_SKILLS = (0, 95)


def codex_version() -> tuple[int, ...] | None:
    """``codex --version`` as numbers, or None when Codex is absent or says nothing usable."""
    executable = shutil.which("codex")
    if executable is None:
        return None
    done = run_bounded([executable, "--version"], VERSION_TIMEOUT_S)
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", done.stdout)
    return tuple(int(g) for g in match.groups() if g is not None) if match else None


def skill_root(homes: Homes, version: tuple[int, ...] | None) -> str:
    if version is not None and version < FIRST_WITH_AGENTS_SKILLS:
        return str(homes.codex / "skills")
    return str(homes.agents_skills)


PASSED_ENV = (
    "SKILLOPT_SLEEP_HOME",
    "SKILLOPT_SLEEP_CONFIG",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "OPENAI_API_VERSION",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "SKILLOPT_PRICES",
    "SKILLOPT_HANDOFF_DIR",
)
"""Codex starts MCP servers with a minimal environment (``HOME``, ``PATH``, ``LANG``, ...); these
(each only when set) keep the state dir, the config files, the harness homes a night reads and the
backends' keys the same for the server and its nights as for the user's shell. Without them a
night started from Codex wrote to another state dir, which ``status`` and ``adopt`` never saw."""


PRE_APPROVED = ("dry_run", "run")
"""Tools Codex asks about before every call although they never change a live file: they write
(a night's job, a staged proposal) and are open-world (a night may call a remote model backend).
``codex exec`` runs with approval policy ``never``, which refuses any call that asks, so the
install approves these two; never ``adopt`` or ``rollback``, which keep asking the user (and are
refused where no one can answer)."""


def mcp_block() -> str:
    argv = shim_mcp()
    server = {
        "command": argv[0],
        "args": argv[1:],
        "env_vars": list(PASSED_ENV),
        "tools": {name: {"approval_mode": "approve"} for name in PRE_APPROVED},
    }
    text = tomli_w.dumps({"mcp_servers": {"skillopt_sleep": server}})
    # one entry: no blank line between the server's table and its tools' tables
    return "\n".join(line for line in text.splitlines() if line.strip())


def specs(homes: Homes, *, mcp: bool = True, version: tuple[int, ...] | None = None) -> list[Spec]:
    from pathlib import Path

    root = Path(skill_root(homes, version if version is not None else codex_version()))
    out: list[Spec] = [
        FileSpec(
            "codex",
            root / "skillopt-sleep" / "SKILL.md",
            render(template("codex", SKILL)),
            engine=shim_cli()[0],
        )
    ]
    if mcp:
        out.append(
            BlockSpec(
                "codex",
                homes.codex / "config.toml",
                mcp_block(),
                ("mcp_servers", "skillopt_sleep"),
                engine=shim_mcp()[0],
            )
        )
    return out
