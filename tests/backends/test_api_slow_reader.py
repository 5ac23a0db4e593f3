"""A server that takes the request body in slowly: the call's deadline bounds the writes too.

Each write of the request makes progress, so the SDK's per-operation timeout never fires, and a
large prompt against a server reading a kilobyte at a time held a call for the whole timeout
(``timeout`` seconds) whatever its ``deadline`` said.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from skillopt_core.backends import CompletionRequest
from skillopt_core.backends.retry import RetriesExhausted
from tests.backends._raw import SPECS, RawServer, roles


class SlowReader(RawServer):
    """Accepts connections and reads what they send ``chunk`` bytes every 50 ms (or 20 ms),
    never answering."""

    def __init__(self, chunk: int = 1024, every: float = 0.05) -> None:
        self.chunk, self.every = chunk, every
        self.answers = []
        self.hits = 0
        self.heads = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2 * chunk + 2048)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._loop, daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        self.hits += 1
        with conn, contextlib.suppress(OSError):
            while not self.stop.is_set() and conn.recv(self.chunk):
                time.sleep(self.every)

    def close(self) -> None:
        self.stop.set()
        super().close()


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    ("chunk", "every", "words"),
    [(1024, 0.05, 4_000_000), (32768, 0.02, 16_000_000)],
    ids=["drip", "steady"],  # steady: every send of one long write makes progress
)
def test_a_server_reading_the_request_slowly_is_cut_at_the_deadline(
    spec: str, chunk: int, every: float, words: int
) -> None:
    server = SlowReader(chunk, every)
    try:
        r = roles(server, spec, timeout="20", deadline="1", max_retries="0")
        started = time.monotonic()
        with pytest.raises(RetriesExhausted, match=r"timed out|deadline") as caught:
            r.target.complete(CompletionRequest.of("q " * words))
        assert time.monotonic() - started < 6
        assert "deadline" in caught.value.hint and server.hits == 1
    finally:
        server.close()
