"""Order-preserving parallel map for I/O-bound model calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import TypeVar

from skillopt_core.backends._protocol import HandoffPending

T = TypeVar("T")
R = TypeVar("R")


def parallel_map(fn: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """Apply ``fn`` to every item with up to ``workers`` threads; results keep input order.

    The first exception cancels the calls not yet started and is re-raised, so a dead backend or
    an exhausted budget stops the run instead of being averaged into scores; so does an interrupt
    (Ctrl-C, SIGTERM) of the waiting thread, so no further call is made after it. ``HandoffPending`` is
    the exception: every call still runs, so all of a step's prompts are handed off at once.
    """
    if workers <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        futures = [pool.submit(fn, item) for item in items]
        try:
            wait(futures, return_when=FIRST_EXCEPTION)
            for future in futures:
                error = future.exception() if future.done() else None
                if error is not None and not isinstance(error, HandoffPending):
                    raise error
            wait(futures)
        except BaseException:  # a failed call, Ctrl-C or SIGTERM: start no further (billed) call
            for pending in futures:
                pending.cancel()
            raise
        return [future.result() for future in futures]
