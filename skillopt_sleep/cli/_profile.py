"""The profile flags a night takes (backends, sources, budgets, harness homes), defined once.

``run``, ``dry-run`` and ``schedule`` all accept them; :func:`with_profile` appends them to a
command's signature so each command declares only its own parameters and receives the profile as
``**profile``. :func:`overrides` turns the given flags into dotted configuration keys.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer

from skillopt_sleep.cli._options import (
    CLAUDE_HOME,
    CODEX_HOME,
    COPILOT_HOME,
    VSCODE_HOME,
    source_names,
)

F = TypeVar("F", bound=Callable[..., Any])

BACKEND = typer.Option(
    None, "--backend", help="One backend for both roles (e.g. mock, claude-cli)."
)
OPTIMIZER = typer.Option(
    None, "--optimizer", help="Backend that reflects and edits, NAME[:MODEL] (overrides --backend)."
)
TARGET = typer.Option(
    None, "--target", help="Backend that replays your tasks, NAME[:MODEL] (overrides --backend)."
)
JUDGE = typer.Option(None, "--judge", help="Backend that judges rubrics ('' = rule checks only).")
SOURCES = typer.Option(  # -s and -e as `harvest` and `mine` spell them
    None,
    "--source",
    "-s",
    help="claude | codex | copilot | vscode | all: a comma list, or repeat it.",
)
MAX_CALLS = typer.Option(
    None, "--max-calls", help="Hard limit on model calls tonight (0: no limit, not no calls)."
)
MAX_USD = typer.Option(None, "--max-usd", help="Hard limit on estimated USD tonight.")
MAX_TASKS = typer.Option(None, "--max-tasks", help="Most training tasks replayed tonight.")
SAMPLES = typer.Option(None, "--samples", help="Replays per task (K).")
EMBEDDER = typer.Option(
    None,
    "--embedder",
    "-e",
    help="auto | mpnet | minilm-numpy | minilm | static | tfidf | jaccard.",
)


def _window(value: str | None) -> str | None:
    """``--since`` checked as `harvest` and `mine` check it: a usage error naming the option."""
    from skillopt_sleep.cli._options import checked_since

    checked_since(value, left_out="for night.since of the config (30d unless set)")
    return value


SINCE = typer.Option(  # as `harvest` and `mine` spell it
    None,
    "--since",
    callback=_window,
    help="How far back before the first night nights read sessions, e.g. 7d, 12h (default: "
    "night.since in the config, 30d).",
)
MEMORY = typer.Option(None, "--memory/--no-memory", help="Also improve CLAUDE.md / AGENTS.md.")
AUTO_ADOPT = typer.Option(
    None, "--auto-adopt/--no-auto-adopt", help="Adopt the night's proposal at once (opt-in)."
)

# (parameter name, type, option, dotted config key)
PROFILE: tuple[tuple[str, Any, Any, str], ...] = (
    ("backend", str | None, BACKEND, ""),
    ("optimizer", str | None, OPTIMIZER, "backends.optimizer"),
    ("target", str | None, TARGET, "backends.target"),
    ("judge", str | None, JUDGE, "backends.judge"),
    ("sources", list[str] | None, SOURCES, "night.sources"),
    ("since", str | None, SINCE, "night.since"),
    ("max_calls", int | None, MAX_CALLS, "budget.max_calls"),
    ("max_usd", float | None, MAX_USD, "budget.max_usd"),
    ("max_tasks", int | None, MAX_TASKS, "night.max_tasks"),
    ("samples", int | None, SAMPLES, "night.samples"),
    ("embedder", str | None, EMBEDDER, "mine.embedder"),
    ("memory", bool | None, MEMORY, "night.memory"),
    ("auto_adopt", bool | None, AUTO_ADOPT, "night.auto_adopt"),
    ("claude_home", Path | None, CLAUDE_HOME, "homes.claude"),
    ("codex_home", Path | None, CODEX_HOME, "homes.codex"),
    ("copilot_home", Path | None, COPILOT_HOME, "homes.copilot"),
    ("vscode_home", Path | None, VSCODE_HOME, "homes.vscode"),
)
_KEYS = {name: key for name, _, _, key in PROFILE}


def with_profile(*, exclude: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Add the profile flags (minus ``exclude``) to a command declared with ``**profile``."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        extra = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
            for name, kind, option, _ in PROFILE
            if name not in exclude
        ]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return command(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=[*own, *extra])  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            **command.__annotations__,
            **{name: kind for name, kind, _, _ in PROFILE if name not in exclude},
        }
        return wrapper  # type: ignore[return-value]

    return decorate


def overrides(**flags: Any) -> dict[str, Any]:
    """Given profile flags -> dotted config keys (``None`` means the flag was not given)."""
    out: dict[str, Any] = {}
    backend = flags.pop("backend", None)
    if backend:
        out["backends.optimizer"] = out["backends.target"] = backend
    for name, value in flags.items():
        if name == "sources":
            value = joined_sources(value)
        if value is None:
            continue
        if isinstance(value, Path):
            value = str(value.expanduser().resolve())
        out[_KEYS[name]] = value
    return out


def joined_sources(given: list[str] | str | None) -> str | None:
    """``--source`` as one comma list; None when not given. ``all`` stands for every harness."""
    names = source_names(given)
    if not names:
        return None
    return "claude,codex,copilot" if "all" in names else ",".join(dict.fromkeys(names))
