"""Engine errors as the client's error results: the reason, the exit code and the fix, never a
bare "Error executing tool" (shared by the tools and the resources)."""

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from skillopt_core.errors import EXIT_ERROR, SkillOptError
from skillopt_sleep._display import displayable

F = TypeVar("F", bound=Callable[..., Any])


def os_error_text(exc: OSError) -> str:
    """What an OSError from a path the client gave says: the reason and the path, shortened (a
    path too long for the file system is thousands of characters) and with controls escaped."""
    name = str(exc.filename) if exc.filename is not None else ""
    if len(name) > 120:
        name = f"{name[:100]}... ({len(name)} characters)"
    reason = exc.strerror or exc.__class__.__name__
    return displayable(f"cannot use {name}: {reason}" if name else reason)


def engine_errors(tool: F, error: type[Exception] = ToolError) -> F:
    """Engine errors -> an ``error`` (a tool's error result, or a resource's ``ResourceError``)
    naming the exit code and the fix; an OSError (a path the client gave that the file system
    refuses, e.g. too long) -> one naming the reason. Never a bare "Error executing tool"."""

    @functools.wraps(tool)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except SkillOptError as exc:
            raise error(f"{exc} (exit code {exc.exit_code})") from None
        except KeyError as exc:
            raise error(str(exc.args[0] if exc.args else exc)) from None
        except OSError as exc:
            raise error(f"{os_error_text(exc)} (exit code {EXIT_ERROR})") from None

    return wrapper  # type: ignore[return-value]
