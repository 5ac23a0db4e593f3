"""SIGTERM as an interrupt, so a stopped command unwinds like Ctrl-C instead of vanishing.

By default SIGTERM (a shutdown, ``kill``, a scheduler stopping a job) ends Python at once: no
``finally`` runs and nothing is printed, so a night stopped that way leaves no word in its log.
Inside :func:`sigterm_interrupts` it raises :class:`Terminated` (a ``KeyboardInterrupt``) in the
main thread instead: locks and transactions unwind, and the CLI says what happened (exit 143).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

EXIT_SIGTERM = 143  # 128 + SIGTERM, as a shell reports a process it ended


class Terminated(KeyboardInterrupt):
    """SIGTERM, delivered as an interrupt so cleanup runs on the way out."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` for the block (main thread only: elsewhere Python
    cannot install handlers, and the caller's own handling stays in force)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
