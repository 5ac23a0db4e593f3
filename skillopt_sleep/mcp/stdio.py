"""Serve on stdio, answering the lines that are no JSON-RPC message instead of dropping them.

The SDK's stdio transport (``mcp.server.stdio``) puts the exception of a line it cannot parse on
the read stream, and its dispatcher logs it at debug level and drops it: the client never hears
back. JSON-RPC 2.0 requires an error with ``id: null`` (-32700 for invalid JSON, -32600 for JSON
that is not a message). The dispatcher's hook for such items (``on_stream_exception``) is not
reachable from ``MCPServer``, so :func:`serve_stdio` wraps the transport's read stream and runs the
low-level server the way ``MCPServer.run_stdio_async`` does.
"""

from __future__ import annotations

import contextvars
from types import TracebackType
from typing import TYPE_CHECKING

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.shared._stream_protocols import ReadStream, WriteStream


def error_for(exc: Exception) -> JSONRPCError:
    """The JSON-RPC answer to a line the transport could not turn into a message."""
    invalid_json = isinstance(exc, ValidationError) and any(
        e["type"] == "json_invalid" for e in exc.errors()
    )
    error = (
        ErrorData(code=PARSE_ERROR, message="Parse error")
        if invalid_json
        else ErrorData(code=INVALID_REQUEST, message="Invalid Request")
    )
    return JSONRPCError(jsonrpc="2.0", id=None, error=error)


class AnsweringReadStream:
    """The transport's read stream without its parse failures: each is answered on ``write``."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage]
    ) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender context of the last message (the SDK's runner reads it off the stream)."""
        context: contextvars.Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(error_for(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def _serve(server: MCPServer) -> None:
    # No public accessor in SDK 2.x; the SDK's own in-memory client reaches in the same way.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            AnsweringReadStream(read_stream, write_stream),
            write_stream,
            lowlevel.create_initialization_options(),
        )


def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` on stdin / stdout until the client closes stdin (``MCPServer.run()``'s
    stdio mode, plus the JSON-RPC errors above)."""
    anyio.run(_serve, server)
