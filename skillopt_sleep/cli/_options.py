"""Options shared by the `skillopt-sleep` commands, defined once so every noun reads the same."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# name -> (declarations, help) of the options several commands take, all defaulting to None. Each
# becomes a ``typer.Option`` on first use (PEP 562 ``__getattr__`` below), so a module that needs
# only the helpers here (the plain `skillopt-sleep harvest`) imports no typer.
_SHARED: dict[str, tuple[tuple[str, ...], str]] = {
    "PROJECT": (("--project", "-p"), "Project root (default: the current directory)."),
    "SINCE": (("--since",), "Only sessions active in this window, e.g. 7d, 12h."),
    "STATE_DIR": (
        ("--state-dir",),
        "Directory of the harvest index (default: the project state dir).",
    ),
    "CLAUDE_HOME": (
        ("--claude-home",),
        "Claude Code home (default $CLAUDE_CONFIG_DIR or ~/.claude).",
    ),
    "CODEX_HOME": (("--codex-home",), "Codex home (default $CODEX_HOME or ~/.codex)."),
    "COPILOT_HOME": (
        ("--copilot-home",),
        "Copilot CLI home (default $COPILOT_HOME or ~/.copilot).",
    ),
    "VSCODE_HOME": (
        ("--vscode-home",),
        "VS Code data dir (holding User/workspaceStorage) or a workspaceStorage dir"
        " (default: VS Code's usual places).",
    ),
}


def __getattr__(name: str) -> Any:
    """``PROJECT``, ``SINCE``, ...: the shared ``typer.Option``, made once on first use."""
    if name not in _SHARED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import typer

    declarations, text = _SHARED[name]
    option = globals()[name] = typer.Option(None, *declarations, help=text)
    return option


def project_root(project: Path | None) -> Path:
    return project if project is not None else Path.cwd()


def project_dir(project: Path | None) -> Path:
    """The project a night command works on, which must exist: a misspelt ``-p`` would
    otherwise run quiet nights forever on nothing (``harvest`` and ``mine`` only scope by it).

    A missing one is a usage error (exit 2) printed as ``error:`` and ``fix:`` like every other
    failure, never click's boxed usage message."""
    from skillopt_core.errors import UsageError
    from skillopt_sleep._display import displayable

    root = project_root(project).expanduser()
    fix = "pass the project's folder with -p/--project, or run the command inside it"
    try:
        is_dir = root.is_dir()
    except OSError as exc:  # e.g. a path too long for the file system
        shown = str(root) if len(str(root)) <= 120 else f"{str(root)[:100]}..."
        raise UsageError(displayable(f"project {shown}: {exc.strerror or exc}"), hint=fix) from None
    if not is_dir:
        raise UsageError(displayable(f"project {root} is not a directory"), hint=fix)
    return root


def night_project(project: Path | None) -> Path:
    """The project a night runs on (:func:`project_dir`), never a folder that holds the user's
    home (``~``, ``/home``, ``/``): its night would read the sessions of every project under it
    and stage into the user-wide skill folders. The MCP server refuses such a project too."""
    from skillopt_core.errors import UsageError
    from skillopt_sleep._display import displayable
    from skillopt_sleep.paths import home_held_by

    root = project_dir(project)
    home = home_held_by(root)
    if home is not None:
        raise UsageError(
            displayable(
                f"project {root.resolve()} holds your home folder ({home}): a night there "
                "would read the sessions of every project under it"
            ),
            hint="pass the repository's own folder with -p/--project, or run the command inside it",
        )
    return root


def harness_homes(
    claude: Path | None, codex: Path | None, copilot: Path | None, vscode: Path | None
) -> dict[str, Path]:
    """The explicitly given harness homes, keyed by harvest source name."""
    given = (("claude", claude), ("codex", codex), ("copilot", copilot), ("vscode", vscode))
    return {name: path for name, path in given if path is not None}


def source_names(given: list[str] | str | None) -> list[str]:
    """``--source`` as given (repeated, comma lists, or both) as a list of names."""
    parts = [given] if isinstance(given, str) else list(given or ())
    return [name.strip() for part in parts for name in part.split(",") if name.strip()]


def checked_since(since: str | None, *, left_out: str = "") -> None:
    """``--since`` as a usage error (exit 2) when it is not a usable window; ``left_out`` says
    what leaving it out does for this command (``harvest``: no window; a night: night.since)."""
    import typer

    from skillopt_core.errors import UsageError
    from skillopt_sleep.harvest import parse_since

    try:
        parse_since(since)
    except UsageError as exc:
        tail = f", or leave it out {left_out}" if left_out else ""
        raise typer.BadParameter(exc.message + tail, param_hint="--since") from None


def escape(text: str) -> str:
    """``text`` with Rich markup escaped: anything user- or model-written (requests, reasons,
    paths) is shown as written, never read as ``[b]`` or ``[/INST]`` markup, and its control
    characters as escapes (:func:`skillopt_sleep._display.displayable`)."""
    from rich.markup import escape as rich_escape

    from skillopt_sleep._display import displayable

    return rich_escape(displayable(text))


def terminal(*, stderr: bool = False) -> Console:
    """A Rich console on stdout (or stderr); ``main`` already made both survive any locale."""
    from rich.console import Console

    return Console(stderr=stderr, emoji=False)


@contextlib.contextmanager
def exits_on_error() -> Iterator[None]:
    """Our errors (busy index, unwritable output, ...) as a message and their exit code, printed
    by the one printer every command uses (:mod:`skillopt_core.cli_errors`)."""
    from skillopt_core.cli_errors import fail
    from skillopt_core.errors import SkillOptError

    try:
        yield
    except SkillOptError as exc:
        raise fail(exc) from None
