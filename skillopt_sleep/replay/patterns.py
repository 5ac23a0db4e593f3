"""Regex checks run bounded: a pattern a model wrote must not hang a night.

Two defences. :func:`regex_problem` refuses patterns that do not compile, backreferences, and
every repeat whose passes could split one text more than one way (the shapes that backtrack
exponentially: ``(a+)+``, ``(a|aa)+``, ``(,\\w*\\d*)+``): a repeated body is admitted only where
each choice in it is settled by the next character (a variable repeat cannot match what may
follow it, the next pass's opening included, and alternatives cannot open alike), as in
``v\\d+(\\.\\d+)+`` or ``(,\\s*[a-z]+)*``. The same pattern is refused on every answer, so
candidate and current skill are judged alike. What passes that screen is searched in a helper
interpreter (in a session of its own, so a Ctrl-C at the terminal does not reach it) that is
stopped after :data:`TIME_LIMIT_S` (polynomial blow-ups like ``\\s*\\s*x`` on a huge answer):
that search alone is undecided, the next one is tried afresh, so no verdict depends on which
answer came first. A helper that died (killed from outside) is started again once; where none
can start, a screened pattern is searched in this process.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from typing import Any

from skillopt_sleep.replay._regex_screen import regex_problem

__all__ = ["TIME_LIMIT_S", "bounded_search", "regex_problem"]

TIME_LIMIT_S = 2.0
"""Seconds one search may take before the pattern is given up on."""

SLOW, ERROR, GONE = "slow", "error", "gone"  # why a helper's search was not decided
# the helper in a session (a process group) of its own: a Ctrl-C or a closed terminal, meant
# for the command, must not kill it mid-search
_OWN_SESSION: dict[str, Any] = (
    {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    if sys.platform == "win32"
    else {"start_new_session": True}
)

_WORKER = r"""
import json, re, sys
try:
    import resource
except ImportError:
    resource = None
for line in sys.stdin:
    pattern, text, limit = json.loads(line)
    if resource is not None:
        used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        soft = int(used + limit) + 2
        if hard == resource.RLIM_INFINITY or soft <= hard:
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    try:
        found = re.search(pattern, text) is not None
    except Exception:
        found = None
    sys.stdout.write(json.dumps(found) + "\n")
    sys.stdout.flush()
"""


class _Worker:
    """One helper interpreter, reused for every search (a round trip costs well under a
    millisecond), replaced when a search runs out of time. No thread outlives a search, so the
    process stays single-threaded between them (forked work needs that)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._owner = 0

    def _start(self) -> subprocess.Popen[str]:
        if self._owner != os.getpid():  # forked: the helper and its pipes are the parent's
            self._process = None
        if self._process is None or self._process.poll() is not None:
            self.stop()
            self._owner = os.getpid()
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                errors="surrogatepass",
                **_OWN_SESSION,
            )
        return self._process

    def search(self, pattern: str, text: str, limit: float) -> bool | str:
        """True or False, or why it was not decided: :data:`SLOW` (out of time), :data:`ERROR`
        (the search itself failed), or :data:`GONE` (no helper could answer)."""
        with self._lock:
            try:
                for _ in range(2):  # a helper killed from outside is started again, once
                    found = self._ask(pattern, text, limit)
                    if found != GONE:
                        return found
                return GONE
            except BaseException:  # a Ctrl-C or SIGTERM mid-search: its reply must not be read
                self.stop()  # as the next search's
                raise

    def _ask(self, pattern: str, text: str, limit: float) -> bool | str:
        try:
            process = self._start()
        except OSError:  # no process or descriptor left, or no interpreter to start
            return GONE
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        reply: list[str] = []

        def read() -> None:  # the helper may be stopped under it (a SIGTERM unwinding a night)
            try:
                reply.append(stdout.readline())
            except (OSError, ValueError):
                reply.append("")

        reader = threading.Thread(target=read, daemon=True)
        try:
            stdin.write(json.dumps([pattern, text, limit]) + "\n")
            stdin.flush()
        except (OSError, ValueError):
            self.stop()
            return GONE
        reader.start()
        reader.join(limit)
        if reader.is_alive():
            self.stop()
            reader.join()
            return SLOW
        if not reply or not reply[0]:  # the helper ended before it answered
            self.stop()
            return GONE
        found = json.loads(reply[0])
        return found if isinstance(found, bool) else ERROR

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or self._owner != os.getpid():
            return
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


_worker = _Worker()
atexit.register(_worker.stop)


def bounded_search(pattern: str, text: str) -> tuple[bool | None, str]:
    """Whether ``pattern`` matches somewhere in ``text``, or (None, why) when it was not decided:
    the pattern is invalid or shaped to backtrack catastrophically (so on every answer), or this
    search ran out of time or failed (this answer alone)."""
    problem = regex_problem(pattern)
    if problem:
        return None, problem
    found = _worker.search(pattern, text, TIME_LIMIT_S)
    if found == GONE:  # no helper: the screened pattern, searched here
        return re.search(pattern, text) is not None, ""
    if found == SLOW:
        return None, f"it took over {TIME_LIMIT_S:g}s on this answer"
    if found == ERROR:
        return None, "the search failed on this answer"
    return bool(found), ""
