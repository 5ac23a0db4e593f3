"""A loopback HTTP server that answers with whatever bytes a test hands it, and the helpers that
point the real OpenAI and Anthropic SDKs at it (for replies the scripted fake server cannot
make: an HTML page, a body that drips in, a gzip bomb, a Retry-After date)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

from skillopt_core.backends import CompletionRequest
from skillopt_core.backends.runtime import Roles, open_roles

KEY = "sk-test-key-0123456789"
SPECS = ["openai:gpt-4o", "anthropic:claude-x"]
Answer = bytes | Callable[[socket.socket], None]
CHAT_OK = json.dumps(  # a complete OpenAI chat completion that says "hi"
    {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
)


class RawServer:
    """Answers the n-th connection with ``answers[n]`` (the last one repeats), then closes it."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.hits = 0
        self.heads: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(h.split(b":")[1])
                    for h in head.split(b"\r\n")
                    if h.lower().startswith(b"content-length:")
                ),
                0,
            )
            while len(body) < length:
                body += conn.recv(65536)
            answer = self.answers[min(self.hits, len(self.answers) - 1)]
            self.heads.append(head)
            self.hits += 1
            with contextlib.suppress(OSError):
                answer(conn) if callable(answer) else conn.sendall(answer)

    def close(self) -> None:
        self.sock.close()


def http(status: int, body: str | bytes, ctype: str = "application/json", **headers: str) -> bytes:
    data = body.encode() if isinstance(body, str) else body
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {ctype}", f"Content-Length: {len(data)}"]
    lines += ["Connection: close", *(f"{k.replace('_', '-')}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


def roles(server: RawServer, spec: str, sleeps: list[float] | None = None, **opts: Any) -> Roles:
    base = f"http://127.0.0.1:{server.port}" + ("/v1" if spec.startswith("openai") else "")
    options = {"base_url": base, "api_key": KEY, "timeout": "2", "retry_base_s": "0", **opts}
    sink = sleeps if sleeps is not None else []
    return open_roles(spec, spec, options, check_health=False, sleep=sink.append)


def ask(r: Roles) -> str:
    return r.target.complete(CompletionRequest.of("q")).text
