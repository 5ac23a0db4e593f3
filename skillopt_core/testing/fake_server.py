"""A loopback fake model server speaking OpenAI Chat Completions, OpenAI Responses and Anthropic
Messages, streaming and not — for tests, benchmarks and running the real harness CLIs offline.

    with FakeModelServer(["first reply", Fault.rate_limit(retry_after=0), "second"]) as fake:
        client = openai.OpenAI(base_url=fake.openai_base_url, api_key="test")
        ...
        assert fake.generation_requests[0].api == "chat"

Generation requests consume the script in order; once it is empty the responder callable answers
(``(request_json) -> str | Reply | Fault``). Model lists and token counts never consume the script.
Everything received, including unknown paths (answered with a JSON 404), is in ``requests``.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from http.server import ThreadingHTTPServer
from typing import Any

from skillopt_core.testing._handler import FakeHandler, classify
from skillopt_core.testing._script import LoggedRequest, Responder, Step, default_responder

__all__ = ["FakeModelServer", "classify"]

_GENERATION_APIS = ("chat", "responses", "messages")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeModelServer) -> None:
        self.fake = fake
        handler = type("BoundFakeHandler", (FakeHandler,), {"fake": fake})
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()
        super().__init__(("127.0.0.1", fake.requested_port), handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up mid-request (a killed CLI, a test's timeout, a drop injected on
        purpose) is what the fake exists to survive, not a traceback on stderr."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def close_all_connections(self) -> None:
        with self.sockets_lock:
            sockets, self.open_sockets = list(self.open_sockets), set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class FakeModelServer:
    """Threaded HTTP server on 127.0.0.1 (random port by default); a context manager."""

    def __init__(
        self,
        replies: Iterable[Step] | Responder | None = None,
        *,
        responder: Responder | None = None,
        api_key: str | None = None,
        models: Sequence[str] = ("fake-model",),
        port: int = 0,
        chunk_size: int = 12,
        model_list: bool = True,
    ) -> None:
        if callable(replies):
            responder, replies = replies, None
        self._script: deque[Step] = deque(replies or ())
        self.responder: Responder = responder or default_responder
        self.api_key = api_key
        self.models = list(models) or ["fake-model"]
        self.requested_port = port
        self.chunk_size = chunk_size
        self.model_list = model_list
        self._log: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FakeModelServer:
        if self._server is None:
            self._stopping.clear()
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="fake-model-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.close_all_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """Root URL; what ``ANTHROPIC_BASE_URL`` expects."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """Root URL plus ``/v1``; what ``OPENAI_BASE_URL`` and Codex providers expect."""
        return f"{self.base_url}/v1"

    # --- script and log --------------------------------------------------------------------------

    def script(self, *steps: Step) -> None:
        """Append replies and faults, each served to one later generation request, in order."""
        with self._lock:
            self._script.extend(steps)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[LoggedRequest]:
        with self._lock:
            return list(self._log)

    @property
    def generation_requests(self) -> list[LoggedRequest]:
        return [r for r in self.requests if r.api in _GENERATION_APIS]

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def next_step(self, body: Mapping[str, Any]) -> Step:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return self.responder(body)

    def record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._log.append(entry)

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server stops (so slow replies never block shutdown)."""
        self._stopping.wait(seconds)
