"""An interrupt (Ctrl-C, or SIGTERM turned into one) while ``parallel_map`` waits starts no
further model call: the pool's exit waited for every queued call, each billed after the stop."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from skillopt_core.parallel import parallel_map


def test_an_interrupt_while_waiting_starts_no_queued_call() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def call(item: int) -> int:
        with lock:
            started.append(item)
        time.sleep(0.1)
        return item

    def interrupt_soon() -> None:
        time.sleep(0.15)
        os.kill(os.getpid(), signal.SIGINT)  # a real signal, as Ctrl-C delivers it

    # a handler of our own: a suite run in the background inherits SIGINT ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt_soon, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            parallel_map(call, list(range(40)), workers=4)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(started) <= 12, f"{len(started)} of 40 calls started after the interrupt"
