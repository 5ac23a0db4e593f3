"""What the experiments' command lines share, so none of them ends in a traceback.

A deliberate error (:class:`~skillopt_core.errors.SkillOptError`) prints ``error: ...`` and its fix
and exits with its code (2 for a flag we cannot use); so does a file the run could not write (1).
Ctrl-C exits 130 and SIGTERM 143, both raised as :class:`KeyboardInterrupt` where the process is,
so every ``finally`` runs and no temporary world is left behind. Output files are written whole
(a temporary file renamed over the target) or not at all.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from skillopt_core.cli_errors import print_error
from skillopt_core.errors import (
    EXIT_ERROR,
    SkillOptError,
    StorageError,
    UsageError,
    exit_code_for,
)
from skillopt_core.interrupts import EXIT_SIGTERM, Terminated, sigterm_interrupts


def guarded(body: Callable[[], int]) -> int:
    """Run a command's body; map what a user can meet to a message and an exit code."""
    try:
        with sigterm_interrupts():
            return body()
    except SkillOptError as exc:
        print_error(exc.message, exc.hint)
        return exit_code_for(exc)
    except BrokenPipeError:  # the reader left (`| head`): stop quietly, as a shell tool does
        _silence_stdout()
        return EXIT_ERROR
    except OSError as exc:  # a full disk or a folder we may not write, met mid-run
        where = f" ({exc.filename})" if exc.filename else ""
        print_error(
            f"{exc.strerror or exc}{where}",
            "free space or choose a writable folder, then run the command again",
        )
        return EXIT_ERROR
    except Terminated:
        print_error("stopped by SIGTERM")
        return EXIT_SIGTERM
    except KeyboardInterrupt as exc:
        print_error("interrupted")
        return exit_code_for(exc)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's flush at exit does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def usage(message: str, hint: str = "") -> UsageError:
    return UsageError(message, hint=hint)


def in_place(path: Path) -> bool:
    """A device or a pipe (``/dev/stdout``, a FIFO): appended to where it is, never renamed over
    (a rename would replace ``/dev/stdout`` itself, and resolving it names no file for a pipe)."""
    return path.absolute().parts[:2] == ("/", "dev") or (path.exists() and not path.is_file())


def check_output_file(path: Path, flag: str) -> None:
    """Refuse, before any work, a file we could not write at the end of a long run."""
    if path.is_dir():
        raise usage(f"{flag} {path} is a folder", "name a file, e.g. result.json")
    if in_place(path):
        if not os.access(path, os.W_OK):
            raise usage(f"{flag} {path} is not writable", "choose another path")
        return
    path = path.resolve()  # through a link: the file it names is the one written
    parent = path.parent
    if not parent.is_dir():
        raise usage(f"{flag} {path}: folder {parent} does not exist", "create it first")
    if not os.access(parent, os.W_OK):
        raise usage(f"{flag} {path}: folder {parent} is not writable", "choose another path")


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder: a reader (or a
    re-run) sees the old file or the new one, never half of one. A link is written through (the
    file it names is replaced, the link stays); a device or a pipe is appended to in place."""
    fd, temp = -1, ""
    try:
        if in_place(path):
            with path.open("a", encoding="utf-8") as sink:
                sink.write(text)
            return
        path = path.resolve()
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with contextlib.suppress(OSError):  # mkstemp's 0600 would hide a shared report
            os.chmod(temp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as sink:
            fd = -1
            sink.write(text)
        os.replace(temp, path)
        temp = ""
    except OSError as exc:
        raise StorageError(
            f"could not write {path}: {exc.strerror or exc}",
            hint="check the folder's permissions and free space, then run the command again",
        ) from exc
    finally:
        if fd >= 0:
            os.close(fd)
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp)
