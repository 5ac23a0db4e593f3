"""Ordered work in forked worker processes: results stream back in input order.

This process hands batches out, in order, to ``workers - 1`` forked workers, a few batches ahead
of each, and works batches itself whenever the one it must yield next is not ready: no process
waits while there is work, however the work and the consumer's own cost are balanced, and this
process's share is never pickled. A worker is forked with the work already in its memory (it is
sent only batch numbers) and writes each batch's pickled results to its own pipe; the results
are yielded in batch order, with no executor thread, no shared queue and no reordering buffer
beyond the few batches this process works ahead. Memory stays flat however much there is to do.

Only where ``fork`` is safe (POSIX, a single-threaded parent): elsewhere the caller works
in-process. A worker inherits the parent's configured state (the redactor, the registry).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import select
import signal
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from skillopt_core.errors import SkillOptError

T = TypeVar("T")
R = TypeVar("R")

_HEADER = struct.Struct("<Q?")  # payload length, ok
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
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


AHEAD = 2  # batches a worker holds beyond the one it works on
OWN_AHEAD = 4  # batches this process may work ahead of the one it must yield next
_ORDER = struct.Struct("<I")  # a batch's number, to a worker


@dataclass
class _Worker:
    pid: int
    orders: int  # write end: batch numbers to work
    results: int  # read end: each batch's results, in the order given
    given: deque[int] = field(default_factory=deque)  # batch numbers not yet read back


def ordered_map(
    work: Callable[[T], R], items: Sequence[T], workers: int, batch: int
) -> Generator[R, None, None]:
    """``map(work, items)`` over ``workers`` processes (this one and ``workers - 1`` forked),
    yielded in order as it is done.

    Closing the iterator early (or an exception in the consumer) stops the workers. An exception
    in a batch this process works is raised as it is; a forked worker's, as a ``WorkerError``.
    """
    batches = [items[i : i + batch] for i in range(0, len(items), batch)]
    forked: list[_Worker] = []
    try:
        for _ in range(max(1, min(workers, len(batches))) - 1):
            forked.append(_fork(work, batches, forked))
        yield from _gather(work, batches, forked)
    finally:
        for worker in forked:
            for fd in (worker.orders, worker.results):
                with contextlib.suppress(OSError):
                    os.close(fd)
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)  # a finished worker is already gone
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)


def _gather(
    work: Callable[[T], R], batches: list[Sequence[T]], forked: list[_Worker]
) -> Iterator[R]:
    """The batches' results in order: each worker kept ``AHEAD`` batches ahead, and a batch
    worked here whenever the next one to yield is not ready yet."""
    owner: dict[int, _Worker] = {}  # batch number -> the worker given it, until read back
    mine: dict[int, list[R]] = {}  # batches worked here, until their turn
    free = 0  # the first batch nobody was given

    def hand_out() -> None:
        nonlocal free
        for worker in forked:
            while len(worker.given) <= AHEAD and free < len(batches):
                # a worker gone since its last result (killed) is reported when its batch
                # comes up: the WorkerError then says what happened and what to do
                with contextlib.suppress(BrokenPipeError):
                    os.write(worker.orders, _ORDER.pack(free))
                worker.given.append(free)
                owner[free] = worker
                free += 1

    for at in range(len(batches)):
        hand_out()
        while at not in mine:
            worker = owner.get(at)
            if worker is None or (
                free < len(batches) and len(mine) < OWN_AHEAD and not _ready(worker.results)
            ):
                mine[free] = [work(item) for item in batches[free]]
                free += 1
                continue
            worker.given.popleft()
            del owner[at]
            results: list[R] = _receive(worker)
            hand_out()
            yield from results
            break
        else:
            yield from mine.pop(at)


def _ready(fd: int) -> bool:
    """Whether a worker's pipe has something to read now (results, or its end)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def _fork(work: Callable[[T], R], batches: list[Sequence[T]], others: list[_Worker]) -> _Worker:
    orders_in, orders_out = os.pipe()
    results_in, results_out = os.pipe()
    _widen(results_out)
    parent, set_death_signal = os.getpid(), _death_signal_setter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns (coverage cannot see it)
        if set_death_signal is not None:
            set_death_signal()
        if os.getppid() != parent:  # the parent died before the death signal was set
            os._exit(1)
        for fd in (orders_out, results_in, *(f for w in others for f in (w.orders, w.results))):
            os.close(fd)
        _child(work, batches, orders_in, results_out)
    os.close(orders_in)
    os.close(results_out)
    return _Worker(pid, orders_out, results_in)


@functools.cache
def _death_signal_setter() -> Callable[[], None] | None:
    """Linux: a call that has the kernel SIGKILL this process when its parent dies. A worker
    shares the parent's open files, so its locks too (the project's, the index's): killed with
    it, the worker no longer holds them for the rest of its batch (seconds of MiniLM encoding)
    after a night is SIGKILLed. Loaded in the parent, once; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    return lambda: prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _read(fd: int, size: int) -> bytes:
    """``size`` bytes from a pipe, or fewer when the writer is gone."""
    chunks = bytearray()
    while len(chunks) < size:
        chunk = os.read(fd, size - len(chunks))
        if not chunk:
            break
        chunks += chunk
    return bytes(chunks)


def _receive(worker: _Worker) -> list[R]:
    header = _read(worker.results, _HEADER.size)
    if len(header) < _HEADER.size:
        raise WorkerError(f"worker {worker.pid} exited without its results")
    length, ok = _HEADER.unpack(header)
    payload = _read(worker.results, length)
    if len(payload) < length:
        raise WorkerError(f"worker {worker.pid} exited mid-result")
    if not ok:
        raise WorkerError(f"worker {worker.pid} failed:\n{payload.decode('utf-8', 'replace')}")
    results: list[R] = pickle.loads(payload)
    return results


def _child(
    work: Callable[[T], R], batches: list[Sequence[T]], orders: int, results: int
) -> None:  # pragma: no cover - runs in the forked child
    """Work the batches given, in order, until the parent closes the orders; then leave without
    running the parent's exit handlers or flushing its inherited buffers (stdout, the index)."""
    gc.disable()  # short-lived, acyclic work: collection would only copy the parent's pages
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler unwinds the parent only
    code = 0
    try:
        while order := _read(orders, _ORDER.size):
            (at,) = _ORDER.unpack(order)
            _send(results, pickle.dumps([work(item) for item in batches[at]], 5), True)
    except BaseException:  # reported to the parent, which raises it
        import traceback

        code = 1
        with contextlib.suppress(BaseException):
            _send(results, traceback.format_exc().encode("utf-8", "replace"), False)
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
