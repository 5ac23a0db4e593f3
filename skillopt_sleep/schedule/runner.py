"""The one door to the OS scheduler commands (``crontab``, ``launchctl``, ``schtasks``).

Output is read as bytes and decoded as UTF-8 with ``surrogateescape``, and input is encoded the
same way, with no newline translation: a crontab holding a Latin-1 comment, CRLF endings or a
lone CR inside another job's command goes back out byte for byte.

Installers call a :class:`Runner`; tests pass a fake that records argv and plays a crontab, so no
test ever reads or writes the real one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from skillopt_core.errors import SkillOptError

# Lossless both ways: any byte that is not UTF-8 becomes a lone surrogate and back again.
ENCODING, ERRORS = "utf-8", "surrogateescape"


class ScheduleError(SkillOptError, RuntimeError):
    """The OS scheduler refused or is missing (exit 1); every one says what to do."""

    def __init__(self, message: str = "", *, hint: str = "") -> None:
        super().__init__(
            message,
            hint=hint
            or "check that your user may use the system scheduler (its message is above), or "
            "run `skillopt-sleep daemon` instead of an OS schedule",
        )


class ProgramMissing(ScheduleError):
    """The scheduler's program is not on this machine (so it holds no entry of ours either)."""


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: str = ""
    stderr: str = ""


class Runner(Protocol):
    def __call__(self, argv: Sequence[str], stdin: str | None = None) -> Completed: ...


def run_command(argv: Sequence[str], stdin: str | None = None) -> Completed:
    """Run ``argv`` (no shell), capture its output; a missing program is a ScheduleError."""
    data = None if stdin is None else stdin.encode(ENCODING, ERRORS)
    try:
        done = subprocess.run(list(argv), input=data, capture_output=True, timeout=60, check=False)
    except FileNotFoundError:
        raise ProgramMissing(
            f"{argv[0]} is not installed or not on PATH",
            hint="install it, or run `skillopt-sleep daemon` instead of an OS schedule",
        ) from None
    except subprocess.TimeoutExpired:
        raise ScheduleError(f"{' '.join(argv)} did not finish within 60 s") from None
    return Completed(done.returncode, _text(done.stdout), _text(done.stderr))


def _text(data: bytes | None) -> str:
    return (data or b"").decode(ENCODING, ERRORS)


def checked(runner: Runner, argv: Sequence[str], stdin: str | None = None) -> Completed:
    """``runner(argv)`` that must succeed; a failure is a ScheduleError quoting its stderr."""
    done = runner(argv, stdin)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip() or f"exit {done.returncode}"
        raise ScheduleError(f"{' '.join(argv[:2])} failed: {detail}")
    return done
