"""One exception hierarchy for the optimizer and the nightly engine.

Every error a user can meet derives from :class:`SkillOptError` and carries its process exit code
and, where there is one, a ``hint`` that says what to do. Front ends (the ``skillopt`` and
``skillopt-sleep`` CLIs, the MCP server, the scheduler) map errors with :func:`exit_code_for` and
never keep their own ladders.

Exit codes (documented in both CLIs' ``--help``; ``skillopt`` stages nothing, so it never
returns 6 and its help does not list it):

=====  =============================================================
0      ok
1      error (a backend failed, a file could not be written, ...)
2      usage or configuration error
3      handoff pending: prompts await an outside agent's answers
4      stopped by a budget limit
5      busy: another process holds the project's (or run's) lock
6      refused: a live file changed since the proposal was staged
7      nothing usable: the model never returned usable output
130    interrupted (Ctrl-C)
143    stopped by SIGTERM, where a command turns it into an interrupt
=====  =============================================================
"""

from __future__ import annotations

from skillopt_core.interrupts import EXIT_SIGTERM, Terminated

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_HANDOFF = 3
EXIT_BUDGET = 4
EXIT_BUSY = 5
EXIT_DRIFT = 6
EXIT_NO_EVIDENCE = 7

EXIT_CODES_HELP = (
    "Exit codes: 0 ok, 1 error, 2 usage or config error, 3 handoff pending, "
    "4 stopped by a budget limit, 5 busy (another run holds the lock), "
    "6 live file changed since staging, 7 nothing usable came back from the model, "
    "130 interrupted, 143 stopped by SIGTERM."
)
TRAIN_EXIT_CODES_HELP = (
    "Exit codes: 0 ok, 1 error, 2 usage or config error, 3 handoff pending, "
    "4 stopped by a budget limit, 5 busy (another run holds the run directory), "
    "7 nothing usable came back from the model, 130 interrupted, "
    "143 stopped by SIGTERM."
)
"""``skillopt``'s: the same codes without 6, which only adopting a staged proposal raises."""


class SkillOptError(Exception):
    """Base of every error we raise on purpose. ``hint`` is the fix, shown after the message."""

    exit_code: int = EXIT_ERROR

    def __init__(self, message: str = "", *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    @property
    def message(self) -> str:
        # Exception.__str__, not super(): a KeyError mixin would wrap the message in quotes.
        return Exception.__str__(self)

    def __str__(self) -> str:
        base = self.message
        return f"{base}\n  fix: {self.hint}" if self.hint else base


class UsageError(SkillOptError, ValueError):
    """A flag, argument or configuration value we cannot use."""

    exit_code = EXIT_USAGE


class BusyError(SkillOptError, RuntimeError):
    """Another process holds the lock on the same run or project."""

    exit_code = EXIT_BUSY


class DriftError(SkillOptError, RuntimeError):
    """A live file changed after a proposal was staged from it."""

    exit_code = EXIT_DRIFT


class NoEvidenceError(SkillOptError, RuntimeError):
    """Nothing usable came back (every reply unusable, every replay failed for one reason)."""

    exit_code = EXIT_NO_EVIDENCE


class StorageError(SkillOptError, OSError):
    """A state or output file could not be written or read (disk full, permissions, corrupt)."""

    exit_code = EXIT_ERROR


def exit_code_for(error: BaseException) -> int:
    """The process exit code for ``error`` (1 for anything not from this hierarchy)."""
    if isinstance(error, SkillOptError):
        return error.exit_code
    if isinstance(error, KeyboardInterrupt):
        return EXIT_SIGTERM if isinstance(error, Terminated) else 130
    return EXIT_ERROR
