"""Regex checks run bounded: a pattern a model wrote must not hang a night.

Two defences. :func:`regex_problem` refuses patterns that do not compile and the shapes that
backtrack catastrophically (a repeat nested in an unbounded repeat, like ``(a+)+``, unless
each pass opens with a character the inner repeats cannot match, like ``(\\.\\d+)+``; and
backreferences): the same pattern is refused on every answer, so candidate and current skill are
judged alike. What passes that screen is searched in a helper interpreter (in a session of its
own, so a Ctrl-C at the terminal does not reach it) that is stopped after :data:`TIME_LIMIT_S`
(polynomial blow-ups like ``\\s*\\s*x`` on a huge answer): that search alone is undecided, the
next one is tried afresh, so no verdict depends on which answer came first. A helper that died
(killed from outside) is started again once; where none can start, a screened pattern is
searched in this process.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import re
import subprocess
import sys
import threading
from typing import Any

try:  # the parser behind ``re``: re._parser from Python 3.11, sre_parse before
    _sre: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.10
    _sre = importlib.import_module("sre_parse")

TIME_LIMIT_S = 2.0
"""Seconds one search may take before the pattern is given up on."""
LARGE_REPEAT = 10
"""A repeat of more than this many times counts as unbounded around a nested repeat."""

SLOW, ERROR, GONE = "slow", "error", "gone"  # why a helper's search was not decided
# the helper in a session (a process group) of its own: a Ctrl-C or a closed terminal, meant
# for the command, must not kill it mid-search
_OWN_SESSION: dict[str, Any] = (
    {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    if sys.platform == "win32"
    else {"start_new_session": True}
)

_REPEATS = {_sre.MAX_REPEAT, _sre.MIN_REPEAT}
_BACKREFS = {_sre.GROUPREF, getattr(_sre, "GROUPREF_EXISTS", _sre.GROUPREF)}
_SAFE_GROUPS = {getattr(_sre, "POSSESSIVE_REPEAT", None), getattr(_sre, "ATOMIC_GROUP", None)}

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


def _subpatterns(value: Any) -> list[Any]:
    """The parsed sub-patterns held anywhere in one node's argument."""
    if isinstance(value, _sre.SubPattern):
        return [value]
    if isinstance(value, (tuple, list)):
        return [s for item in value for s in _subpatterns(item)]
    return []


_CLASSES = {
    _sre.CATEGORY_DIGIT: r"\d",
    _sre.CATEGORY_NOT_DIGIT: r"\D",
    _sre.CATEGORY_SPACE: r"\s",
    _sre.CATEGORY_NOT_SPACE: r"\S",
    _sre.CATEGORY_WORD: r"\w",
    _sre.CATEGORY_NOT_WORD: r"\W",
}


def _may_match(item: Any, char: str, flags: int) -> bool:
    """Whether the one-character matcher ``item`` (a repeat's body) can match ``char``; True
    for anything else (longer bodies, unknown nodes): the screen errs towards refusing."""
    if len(item) != 1:
        return True
    op, av = item[0]
    variants = {char, char.lower(), char.upper()} if flags & re.IGNORECASE else {char}
    if op is _sre.LITERAL:
        return any(ord(c) == av for c in variants)
    if op is _sre.NOT_LITERAL:
        return any(ord(c) != av for c in variants)
    if op is _sre.ANY:
        return char != "\n" or bool(flags & re.DOTALL)
    if op is not _sre.IN:
        return True
    negated = bool(av) and av[0][0] is _sre.NEGATE
    hit = False
    for kind, value in av[negated:]:
        if kind is _sre.LITERAL:
            hit = any(ord(c) == value for c in variants)
        elif kind is _sre.RANGE:
            hit = any(value[0] <= ord(c) <= value[1] for c in variants)
        elif kind is _sre.CATEGORY and value in _CLASSES:
            hit = (
                re.fullmatch(_CLASSES[value], char, flags & (re.ASCII | re.IGNORECASE)) is not None
            )
        else:
            return True
        if hit:
            break
    return hit != negated


def _repeats_within(parsed: Any) -> list[Any]:
    """Every repeat's body anywhere in ``parsed``."""
    found: list[Any] = []
    for op, av in parsed:
        if op in _REPEATS:
            found.append(av[2])
        found.extend(b for s in _subpatterns(av) for b in _repeats_within(s))
    return found


def _delimited(body: Any, flags: int) -> bool:
    r"""A repeated body that opens with a character none of its own repeats can match (``\.``
    in ``(\.\d+)+``, ``,`` in ``(,\s*\w+)*``): each pass begins at the next such character,
    so the passes split a text one way only and the inner repeats cannot backtrack across
    them."""
    while len(body) == 1 and body[0][0] is _sre.SUBPATTERN:
        group_flags = body[0][1][1]
        flags |= group_flags
        body = body[0][1][3]
    if not body or body[0][0] is not _sre.LITERAL:
        return False
    char = chr(body[0][1])
    return not any(_may_match(inner, char, flags) for inner in _repeats_within(body[1:]))


def _problem(parsed: Any, in_repeat: bool, flags: int = 0) -> str:
    for op, av in parsed:
        if op in _BACKREFS:
            return "it uses a backreference"
        if op in _SAFE_GROUPS:
            continue  # possessive and atomic: no backtracking into them
        if op in _REPEATS:
            _low, high, body = av
            if high > 1 and in_repeat:
                return "it nests a repeat inside a repeat"
            unbounded = high > LARGE_REPEAT and not _delimited(body, flags)
            found = _problem(body, in_repeat or unbounded, flags)
        else:
            found = next((p for s in _subpatterns(av) if (p := _problem(s, in_repeat, flags))), "")
        if found:
            return found
    return ""


def regex_problem(pattern: str) -> str:
    """Why ``pattern`` cannot be a check ("" when it can): invalid, or shaped to backtrack
    catastrophically. Mining can use it to keep such patterns from ever becoming checks."""
    try:
        parsed = _sre.parse(pattern)
        re.compile(pattern)  # what parses can still fail here (a variable-width look-behind)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"it is an invalid pattern ({exc})"
    return _problem(parsed, False, parsed.state.flags)


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
