"""Ordered work in forked worker processes: results stream back in input order.

Each worker is forked with the work already in its memory (nothing is pickled on the way in),
takes every ``workers``-th batch, and writes each batch's pickled results to its own pipe; the
parent reads the pipes in batch order, so results arrive in input order with no executor
thread, no shared queue and no reordering buffer. A worker ahead of a slow consumer blocks on
its pipe (a few batches deep), so memory stays flat however much there is to do.

Only where ``fork`` is safe (POSIX, a single-threaded parent): elsewhere the caller works
in-process. A worker inherits the parent's configured state (the redactor, the registry).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import struct
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import BinaryIO, TypeVar

from skillopt_core.errors import SkillOptError

T = TypeVar("T")
R = TypeVar("R")

_HEADER = struct.Struct("<Q?")  # payload length, ok
_PIPE_BYTES = 1 << 20  # how far a worker may run ahead of the consumer (Linux; else the default)


class WorkerError(SkillOptError, RuntimeError):
    """A worker failed or was killed (out of memory, a signal): the message carries its
    traceback when it had one. Callers commit nothing a worker computed before all of it is in
    (a harvest's index, a night's families), so running again loses nothing."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            hint="run it again: nothing a failed worker computed was kept "
            "(if it was killed for memory, close other programs first)",
        )


def available() -> bool:
    """Forking is safe here: POSIX, and no other thread whose locks a child could inherit held."""
    return hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the platform has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return max(1, len(affinity(0)))
    return os.cpu_count() or 1


MAX_WORKERS = 8


def in_order(work: Callable[[T], R], items: Sequence[T], batch: int = 1) -> Iterator[R]:
    """``map(work, items)``, over forked workers (one per usable CPU, at most ``MAX_WORKERS``)
    when there is more than one batch and forking is safe here, else in this process.

    For work whose result does not depend on where it runs: a caller that wants results that do
    not depend on the worker count pins what could differ (BLAS threads) in both paths."""
    workers = min(usable_cpus(), MAX_WORKERS)
    if workers < 2 or len(items) <= batch or not available():
        return map(work, items)
    return ordered_map(work, items, workers, batch)


def ordered_map(
    work: Callable[[T], R], items: Sequence[T], workers: int, batch: int
) -> Generator[R, None, None]:
    """``map(work, items)`` over ``workers`` forked processes, yielded in order as it is done.

    Closing the iterator early (or an exception in the consumer) stops the workers.
    """
    batches = [items[i : i + batch] for i in range(0, len(items), batch)]
    workers = max(1, min(workers, len(batches)))
    pids: list[int] = []
    pipes: list[BinaryIO] = []
    try:
        for number in range(workers):
            read_end, write_end = os.pipe()
            _widen(write_end)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child never returns (coverage cannot see it)
                os.close(read_end)
                for other in pipes:
                    other.close()
                _child(work, batches, number, workers, write_end)
            os.close(write_end)
            pids.append(pid)
            pipes.append(os.fdopen(read_end, "rb"))
        for at in range(len(batches)):
            yield from _receive(pipes[at % workers], pids[at % workers])
    finally:
        for pipe in pipes:
            pipe.close()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # a finished worker is already gone
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _receive(pipe: BinaryIO, pid: int) -> list[R]:
    header = pipe.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise WorkerError(f"worker {pid} exited without its results")
    length, ok = _HEADER.unpack(header)
    payload = pipe.read(length)
    if len(payload) < length:
        raise WorkerError(f"worker {pid} exited mid-result")
    if not ok:
        raise WorkerError(f"worker {pid} failed:\n{payload.decode('utf-8', 'replace')}")
    results: list[R] = pickle.loads(payload)
    return results


def _child(
    work: Callable[[T], R], batches: list[Sequence[T]], number: int, workers: int, fd: int
) -> None:  # pragma: no cover - runs in the forked child
    """Work the child's share of the batches, then leave without running the parent's exit
    handlers or flushing its inherited buffers (stdout, the index)."""
    gc.disable()  # short-lived, acyclic work: collection would only copy the parent's pages
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler unwinds the parent only
    code = 0
    try:
        for at in range(number, len(batches), workers):
            _send(fd, pickle.dumps([work(item) for item in batches[at]], 5), True)
    except BaseException:  # reported to the parent, which raises it
        import traceback

        code = 1
        with contextlib.suppress(BaseException):
            _send(fd, traceback.format_exc().encode("utf-8", "replace"), False)
    os._exit(code)


def _send(fd: int, payload: bytes, ok: bool) -> None:  # pragma: no cover - in the child
    view = memoryview(_HEADER.pack(len(payload), ok) + payload)
    while view:
        view = view[os.write(fd, view) :]


def _widen(fd: int) -> None:
    """A deeper pipe lets a worker finish a slow batch's successor while the consumer waits."""
    import fcntl

    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, setter, _PIPE_BYTES)
