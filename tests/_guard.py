"""The suite-wide guard between tests and this machine's scheduler (see ``tests/conftest.py``).

Stand-ins for ``crontab``, ``launchctl``, ``schtasks``, ``systemctl`` and ``at`` (and its
``atq``/``atrm``/``batch``) live in one folder that every test finds first on PATH. Each records
its call in ``calls.log`` beside it and refuses, exit 97; the test then fails at teardown naming
the call. A test that opts in (the ``fake_scheduler`` fixture) gets a folder of its own in front:
fakes whose ``crontab`` keeps its table in a temp file and whose others succeed. The choice
travels with PATH, not with an environment variable, because harnesses (Codex, the MCP
inspector, tmux) start their MCP servers with a trimmed environment that still has PATH.

PATH alone is not enough: a test may start a child with ``env={"PATH": "/usr/bin:/bin"}`` (where
the real ``crontab`` is) or name ``/usr/bin/crontab`` outright. So :func:`guard_popen` wraps
``subprocess.Popen``: a child whose PATH would reach a real scheduler gets the stand-ins' folder
put first (the test's fakes when it opted in), and the test's HOME when its environment names
none; and running a scheduler that is
not a stand-in or a test's own fake (anything outside the pytest temp root) raises at once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEDULERS = ("crontab", "launchctl", "schtasks", "systemctl", "at", "atq", "atrm", "batch")
REFUSED_EXIT = 97
LOG_NAME = "calls.log"

_STUB = r"""#!/bin/sh
# Test stand-in for {name} (tests/_guard.py): the machine's own {name} is never run.
{{ printf '%s\t%s' {mode} {name}; printf '\t%s' "$@"; printf '\n'; }} >> {log}
{body}"""

_REFUSE = """echo "tests: {name} was run by a test that did not request the fake_scheduler fixture" >&2
exit {refused}
"""

_CRONTAB = """F={table}
case "$1" in
 -l) if [ -f "$F" ]; then cat "$F"; else echo "no crontab for tester" >&2; exit 1; fi;;
 -) T=$(mktemp "$F.XXXXXX") && cat > "$T" && mv -f "$T" "$F";;
 -r) rm -f "$F";;
 *) exit 2;;
esac
"""


@dataclass(frozen=True)
class Call:
    """One run of a stand-in: ``refused`` unless the test had opted in."""

    refused: bool
    argv: tuple[str, ...]


@dataclass
class Guard:
    """The session's refusing stand-ins, and the folder the running test's children get in front
    of their PATH (the refusing one, or the test's fakes once it opted in)."""

    refusing: Path
    first: Path


@dataclass(frozen=True)
class StandIns:
    """What the ``fake_scheduler`` fixture gives a test: the fake crontab's table file (absent:
    "no crontab for tester") and every call made since the test opted in."""

    crontab: Path
    folder: Path
    start: int

    def calls(self) -> list[tuple[str, ...]]:
        return [c.argv for c in read_calls(self.folder, self.start)]


def write_stubs(folder: Path, table: Path | None = None) -> Path:
    """The stand-ins in ``folder`` (created): refusing ones, or with a ``table`` fakes whose
    crontab keeps it; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / LOG_NAME
    log.touch()
    for name in SCHEDULERS:
        if table is None:
            body = _REFUSE.format(name=name, refused=REFUSED_EXIT)
        else:
            body = _CRONTAB.format(table=_sh_quote(str(table))) if name == "crontab" else "exit 0\n"
        script = folder / name
        mode = "refused" if table is None else "fake"
        script.write_text(_STUB.format(name=name, mode=mode, log=_sh_quote(str(log)), body=body))
        script.chmod(0o755)
    return folder


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def read_calls(folder: Path, offset: int) -> list[Call]:
    """The calls the stand-ins in ``folder`` logged after byte ``offset``."""
    with (folder / LOG_NAME).open("rb") as handle:
        handle.seek(offset)
        data = handle.read().decode("utf-8", "replace")
    calls = []
    for line in data.splitlines():
        mode, *argv = line.split("\t")
        calls.append(Call(mode != "fake", tuple(argv)))
    return calls


def log_size(folder: Path) -> int:
    return (folder / LOG_NAME).stat().st_size


def _inside(path: str, root: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(root)


def _reaches_real(search_path: str, allowed: Path) -> bool:
    """Whether a program looked up on ``search_path`` could be a real scheduler."""
    for name in SCHEDULERS:
        found = shutil.which(name, path=search_path)
        if found is not None and not _inside(found, allowed):
            return True
    return False


def _program(args: Any, shell: bool, executable: Any) -> str | None:
    if executable is not None:
        return os.fsdecode(executable)
    if shell:
        return None
    if isinstance(args, (str, bytes, os.PathLike)):
        return os.fsdecode(args)
    try:
        return os.fsdecode(next(iter(args)))
    except (StopIteration, TypeError):
        return None


@contextmanager
def guard_popen(guard: Guard, allowed: Path) -> Iterator[None]:
    """While open, ``subprocess.Popen`` never starts a real scheduler (see the module docstring).
    ``allowed``: where stand-ins and tests' own fakes live (the pytest temp root)."""
    original: Callable[..., None] = subprocess.Popen.__init__
    allowed = Path(os.path.realpath(allowed))

    def guarded(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        given: Mapping[str, str] | None = kwargs.get("env")
        env = dict(os.environ if given is None else given)
        search = env.get("PATH", os.defpath)
        if sys.platform != "win32" and _reaches_real(search, allowed):
            env["PATH"] = f"{guard.first}{os.pathsep}{search}"
            kwargs["env"] = env
        if given is not None and "HOME" not in env and "HOME" in os.environ:
            env["HOME"] = os.environ["HOME"]  # not the real home, found through the user database
            kwargs["env"] = env
        program = _program(args, bool(kwargs.get("shell")), kwargs.get("executable"))
        if program is not None and os.path.basename(program) in SCHEDULERS:
            where = program if os.sep in program else shutil.which(program, path=env["PATH"])
            if where is not None and not _inside(where, allowed):
                raise RuntimeError(
                    f"tests may not run the machine's {where}: request the fake_scheduler "
                    "fixture, or pass a fake Runner / Host"
                )
        original(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = guarded  # type: ignore[method-assign]
    try:
        yield
    finally:
        subprocess.Popen.__init__ = original  # type: ignore[method-assign]
