"""The HTTP side of the fake model server: route a request, serve a reply or a fault."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from skillopt_core.testing import _wire
from skillopt_core.testing._script import Fault, LoggedRequest, Reply, Step

if TYPE_CHECKING:
    from skillopt_core.testing.fake_server import FakeModelServer


def classify(method: str, path: str) -> str:
    """Which API a request path belongs to (prefixes such as ``/v1`` or Azure's are ignored)."""
    path = path.rstrip("/")
    if method == "POST":
        for suffix, api in (
            ("/chat/completions", "chat"),
            ("/responses", "responses"),
            ("/messages/count_tokens", "count_tokens"),
            ("/messages", "messages"),
        ):
            if path.endswith(suffix):
                return api
    if method in ("GET", "HEAD") and (path.endswith("/models") or "/models/" in path):
        return "models"
    return "unknown"


def _served_label(step: Step) -> str:
    if isinstance(step, Fault):
        return f"fault:{step.kind}" + (f":{step.status}" if step.kind == "status" else "")
    return "reply"


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeModelServer

    def setup(self) -> None:
        """Disable Nagle: small header and body writes must not wait for a delayed ACK."""
        super().setup()
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet; the request log is the record."""

    # --- entry points ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        fake = self.fake
        path, _, query = self.path.partition("?")
        raw = self._read_body()
        body: Mapping[str, Any] = {}
        if raw:
            try:
                parsed = json.loads(raw)
                body = parsed if isinstance(parsed, dict) else {}
            except ValueError:
                body = {}
        api = classify(self.command, path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        flavour = (
            "anthropic"
            if api in ("messages", "count_tokens") or "anthropic-version" in headers
            else "openai"
        )

        def log(served: str) -> None:
            fake.record(LoggedRequest(self.command, path, api, headers, body, raw, query, served))

        if fake.api_key is not None and not self._authorized(headers, fake.api_key):
            log("fault:status:401")
            self._send_json(401, _wire.error_body(flavour, 401, "Invalid API key (fake server)"))
        elif api == "unknown" or (api == "models" and not fake.model_list):
            log("not_found")
            self._send_json(404, _wire.error_body(flavour, 404, f"No route {self.command} {path}"))
        elif api == "models":
            log("models")
            self._send_json(200, _wire.model_list(flavour, fake.models))
        elif api == "count_tokens":
            log("count_tokens")
            tokens = _wire.estimate_tokens(_wire.request_text("messages", body))
            self._send_json(200, {"input_tokens": tokens})
        else:
            step = fake.next_step(body)
            log(_served_label(step))
            self._serve_generation(api, flavour, body, step)

    @staticmethod
    def _authorized(headers: Mapping[str, str], key: str) -> bool:
        offered = {
            headers.get("authorization", "").removeprefix("Bearer ").strip(),
            headers.get("x-api-key", ""),
            headers.get("api-key", ""),
        }
        return key in offered

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    # --- generation ------------------------------------------------------------------------------

    def _serve_generation(
        self, api: str, flavour: str, body: Mapping[str, Any], step: Step
    ) -> None:
        fake = self.fake
        if isinstance(step, Fault):
            if step.kind == "status":
                extra = {} if step.retry_after is None else {"Retry-After": f"{step.retry_after:g}"}
                message = step.message or f"Fake failure {step.status}"
                self._send_json(step.status, _wire.error_body(flavour, step.status, message), extra)
                return
            if step.kind == "drop":
                self._drop()
                return
            if step.kind == "slow":
                fake.wait(step.delay_s)
                step = fake.responder(body)
                if isinstance(step, Fault):
                    step = Reply("ok")
        reply = Reply(step) if isinstance(step, str) else step
        if isinstance(reply, Reply) and reply.delay_s:
            fake.wait(reply.delay_s)
        fault = step if isinstance(step, Fault) else None
        text = reply.text if isinstance(reply, Reply) else ""
        rendered = _wire.Rendered(
            text=text,
            model=str(body.get("model") or fake.models[0]),
            input_tokens=(
                reply.input_tokens
                if isinstance(reply, Reply) and reply.input_tokens is not None
                else _wire.estimate_tokens(_wire.request_text(api, body))
            ),
            output_tokens=(
                reply.output_tokens
                if isinstance(reply, Reply) and reply.output_tokens is not None
                else _wire.estimate_tokens(text)
            ),
            chunk_size=max(1, fake.chunk_size),
        )
        if body.get("stream"):
            self._send_events(self._events(api, rendered, body), fault)
        else:
            self._send_json(200, self._single(api, rendered, body), truncate=fault is not None)

    @staticmethod
    def _single(api: str, r: _wire.Rendered, body: Mapping[str, Any]) -> dict[str, Any]:
        if api == "chat":
            return _wire.chat_completion(r)
        if api == "responses":
            return _wire.response(r, body)
        return _wire.message(r)

    @staticmethod
    def _events(api: str, r: _wire.Rendered, body: Mapping[str, Any]) -> list[_wire.SseEvent]:
        if api == "chat":
            options = body.get("stream_options") or {}
            return _wire.chat_completion_events(r, bool(options.get("include_usage")))
        if api == "responses":
            return _wire.response_events(r, body)
        return _wire.message_events(r)

    # --- transport -------------------------------------------------------------------------------

    def _send_json(
        self,
        status: int,
        payload: Mapping[str, Any],
        extra_headers: Mapping[str, str] | None = None,
        *,
        truncate: bool = False,
    ) -> None:
        data = json.dumps(payload).encode()
        if truncate:
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", "req_fake")
        self.send_header("request-id", "req_fake")
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self._write(data)

    def _send_events(self, events: list[_wire.SseEvent], fault: Fault | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", "req_fake")
        self.send_header("request-id", "req_fake")
        self.end_headers()
        if fault is not None:
            events = events[:2]
        for index, (name, payload) in enumerate(events):
            data = payload if isinstance(payload, str) else json.dumps(payload)
            if fault is not None and fault.kind == "truncated_json" and index == len(events) - 1:
                data = data[: len(data) // 2]
            frame = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
            self._write_chunk(frame.encode())
        if fault is not None and fault.kind == "cut_stream":
            self._drop()
            return
        self._write(b"0\r\n\r\n")

    def _write_chunk(self, data: bytes) -> None:
        self._write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
