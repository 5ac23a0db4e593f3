"""Options shared by the `skillopt-sleep` commands, defined once so every noun reads the same."""

from __future__ import annotations

from pathlib import Path

import typer

PROJECT = typer.Option(
    None, "--project", "-p", help="Project root (default: the current directory)."
)
SINCE = typer.Option(None, "--since", help="Only sessions active in this window, e.g. 7d, 12h.")
STATE_DIR = typer.Option(
    None, "--state-dir", help="Directory of the harvest index (default: the project state dir)."
)
CLAUDE_HOME = typer.Option(
    None, "--claude-home", help="Claude Code home (default $CLAUDE_CONFIG_DIR or ~/.claude)."
)
CODEX_HOME = typer.Option(
    None, "--codex-home", help="Codex home (default $CODEX_HOME or ~/.codex)."
)
COPILOT_HOME = typer.Option(
    None, "--copilot-home", help="Copilot CLI home (default $COPILOT_HOME or ~/.copilot)."
)
VSCODE_HOME = typer.Option(
    None,
    "--vscode-home",
    help="VS Code data dir (holding User/workspaceStorage) or a workspaceStorage dir"
    " (default: VS Code's usual places).",
)


def project_root(project: Path | None) -> Path:
    return project if project is not None else Path.cwd()


def harness_homes(
    claude: Path | None, codex: Path | None, copilot: Path | None, vscode: Path | None
) -> dict[str, Path]:
    """The explicitly given harness homes, keyed by harvest source name."""
    given = (("claude", claude), ("codex", codex), ("copilot", copilot), ("vscode", vscode))
    return {name: path for name, path in given if path is not None}
