"""Engine errors as the client's error results: the reason, the exit code and the fix, never a
bare "Error executing tool" (shared by the tools and the resources); and the engine's advice
told so that a model can act on it (:func:`for_model`)."""

import functools
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from skillopt_core.errors import EXIT_ERROR, SkillOptError
from skillopt_sleep._display import displayable

F = TypeVar("F", bound=Callable[..., Any])

_COMMAND = re.compile(r"`skillopt-sleep ([a-z][a-z-]*)([^`\n]*)`(?! in a terminal)")
_OPTION = re.compile(r"(?:^|\s)--?([a-z][a-z-]*)")
_JUDGE = re.compile(r" \(--judge\)")
TERMINAL = " (no tool does this: ask the user to run it in a terminal)"
JUDGE = (
    " (which the user sets: `skillopt-sleep run --judge NAME` in a terminal, or backends.judge "
    "in their config)"
)


def for_model(text: str, tools: Mapping[str, Collection[str]]) -> str:
    """``text`` (an engine error's fix, a night's message) with every ``skillopt-sleep``
    command that no tool does (``adopt --force``, ``schedule``: ``tools`` maps each tool to its
    arguments) said to be the user's, in a terminal, and the night's ``--judge`` said to be the
    user's to set. The CLI writes the same text for a person at a terminal; a model told to run
    `skillopt-sleep X` as the tool X would pass an option that tool does not have."""

    def told(match: re.Match[str]) -> str:
        arguments = tools.get(match.group(1).replace("-", "_"))
        options = [o.replace("-", "_") for o in _OPTION.findall(match.group(2))]
        if arguments is not None and all(o in arguments or f"{o}s" in arguments for o in options):
            return match.group(0)
        return match.group(0) + TERMINAL

    return _COMMAND.sub(told, _JUDGE.sub(JUDGE, text))


def os_error_text(exc: OSError) -> str:
    """What an OSError from a path the client gave says: the reason and the path, shortened (a
    path too long for the file system is thousands of characters) and with controls escaped."""
    name = str(exc.filename) if exc.filename is not None else ""
    if len(name) > 120:
        name = f"{name[:100]}... ({len(name)} characters)"
    reason = exc.strerror or exc.__class__.__name__
    return displayable(f"cannot use {name}: {reason}" if name else reason)


def engine_errors(
    tool: F, error: type[Exception] = ToolError, told: Callable[[str], str] = str
) -> F:
    """Engine errors -> an ``error`` (a tool's error result, or a resource's ``ResourceError``)
    naming the exit code and the fix, ``told`` for the model (:func:`for_model`); an OSError (a
    path the client gave that the file system refuses, e.g. too long) -> one naming the reason.
    Never a bare "Error executing tool"."""

    @functools.wraps(tool)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except SkillOptError as exc:
            raise error(f"{told(str(exc))} (exit code {exc.exit_code})") from None
        except KeyError as exc:
            raise error(str(exc.args[0] if exc.args else exc)) from None
        except OSError as exc:
            raise error(f"{os_error_text(exc)} (exit code {EXIT_ERROR})") from None

    return wrapper  # type: ignore[return-value]
