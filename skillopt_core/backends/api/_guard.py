"""Bounds on one HTTP reply that the SDKs' own ``timeout`` does not give.

The SDK's timeout applies to each read, so a server that drips a byte, or a keep-alive comment
into a stream, every few seconds holds a call for ever (so does one that never ends its headers:
a header line, or a ``100 Continue``, every few seconds); a reply is read whole into memory however
large it is, and a compressed one is inflated whole; and a captive portal's HTML login page
answers 200. A response hook on the SDK's HTTP client wraps every reply's bytes so that the reply
ends with a :class:`TransientError` once ``deadline_s`` have passed since its headers arrived,
and with a :class:`BackendError` past :data:`MAX_REPLY_BYTES` (counted after decoding: the hook
undoes the ``Content-Encoding`` itself, see :mod:`._inflate`); a 2xx HTML page is refused at
once, with its text. Headers that never end, and a request the server takes in slowly, are
bounded too: a request hook starts the call's deadline, and every read and write of the
connection (its stream is handed over by the HTTP library's ``trace`` extension when it opens)
waits at most what is left of it. A proxy from the
environment (``HTTP_PROXY``) is never used for a server on this machine (a local vLLM or
Ollama, a loopback fake): a corporate proxy cannot reach it, and ``NO_PROXY`` rarely lists it.

The SDK may wrap what the hook raises (as a connection error); :func:`.errors.translate` finds
it in the exception chain. Imported only when a client is made, since it imports the HTTP library.
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from skillopt_core.backends._protocol import BackendError
from skillopt_core.backends.api import _inflate
from skillopt_core.backends.api.errors import PROXY_HINT, Endpoint
from skillopt_core.backends.options import where_to_set
from skillopt_core.backends.retry import TransientError

MAX_REPLY_BYTES = 64 * 1024 * 1024
"""No model reply comes near this, decoded; a server sending more is broken or hostile."""


def page_text(html: str, limit: int = 160) -> str:
    """The readable text of an HTML page, in one line, for a message."""
    text = " ".join(re.sub(r"<[^>]*>", " ", html).split())
    return text if len(text) <= limit else text[:limit] + "…"


def loopback_host(base_url: str) -> str | None:
    """The host of ``base_url`` as an HTTP client's mount pattern names it, when it is this
    machine (``localhost``, 127.0.0.0/8, ``::1``); else None."""
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return None
    if host == "localhost" or host.endswith(".localhost"):
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if not address.is_loopback:
        return None
    return f"[{host}]" if address.version == 6 else host


def _http_module(sdk: Any) -> Any:
    """The HTTP library (httpx or its successor) the SDK's client is built on."""
    for cls in sdk.DefaultHttpxClient.__mro__:
        if cls.__name__ == "Client" and cls.__module__.startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    raise RuntimeError(f"{sdk.__name__}: no httpx client class found")


def _deadline_error(label: str, deadline_s: float) -> TransientError:
    return TransientError(
        f"{label}: the call timed out (no complete reply within the {deadline_s:g}s deadline)",
        hint="for slow models raise deadline (seconds for the whole reply) "
        f"or timeout (for each read): {where_to_set('deadline=SECONDS', 'timeout=SECONDS')}",
    )


def _bound_io(stream: Any, left: Callable[[], float | None], late: Callable[[], Exception]) -> None:
    """Wrap ``stream.read`` and ``stream.write`` (a connection's network stream) so that neither
    outlasts ``left()`` seconds (None: no deadline running); past it the call ends with ``late()``.
    Writes too: a server taking a large prompt in a kilobyte at a time makes progress on every
    write, so the per-operation timeout alone held the call for the whole ``timeout``."""
    for name in ("read", "write"):
        plain = getattr(stream, name, None)
        if plain is None or getattr(plain, "bounded_by_deadline", False):
            continue
        bounded = _bounded(plain, left, late)
        if name == "write":
            bounded = _sliced(bounded)
        with contextlib.suppress(AttributeError, TypeError):  # a stream that cannot be wrapped
            setattr(stream, name, bounded)


def _bounded(
    plain: Callable[..., Any], left: Callable[[], float | None], late: Callable[[], Exception]
) -> Callable[..., Any]:
    """``plain(data, timeout)`` (a read's byte count or a write's buffer) waiting at most what is
    left of the deadline."""

    def bounded(data: Any, timeout: float | None = None) -> Any:
        remaining = left()
        if remaining is None or (timeout is not None and timeout < remaining):
            return plain(data, timeout)
        if remaining <= 0:
            raise late()
        try:
            return plain(data, remaining)
        except Exception as exc:
            if "Timeout" in type(exc).__name__:
                raise late() from exc
            raise

    bounded.bounded_by_deadline = True  # type: ignore[attr-defined]
    return bounded


_WRITE_SLICE = 64 * 1024


def _sliced(write: Callable[..., Any]) -> Callable[..., Any]:
    """``write`` given at most :data:`_WRITE_SLICE` bytes at a time, so the deadline is looked at
    between slices: one write of a whole prompt loops over the socket's sends with one timeout,
    and a server that keeps taking a little held a 32 MB upload for 18 s past deadline=1."""

    def sliced(buffer: Any, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        for start in range(0, len(view), _WRITE_SLICE):
            write(view[start : start + _WRITE_SLICE], timeout)

    sliced.bounded_by_deadline = True  # type: ignore[attr-defined]
    return sliced


def http_client(sdk: Any, where: Endpoint, deadline_s: float) -> Any:
    """The SDK's default HTTP client with every reply bounded as the module docstring says."""
    lib = _http_module(sdk)
    label = where.label
    calls = threading.local()  # this thread's request deadline (a sync client reads in its thread)

    def left() -> float | None:
        deadline: float | None = getattr(calls, "deadline", None)
        return None if deadline is None else deadline - time.monotonic()

    def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith(("connect_tcp.complete", "start_tls.complete")):
            _bound_io(info.get("return_value"), left, lambda: _deadline_error(label, deadline_s))

    def start(request: Any) -> None:
        calls.deadline = time.monotonic() + deadline_s
        request.extensions["trace"] = trace

    class Bounded(lib.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, codings: list[str]) -> None:
            self.inner = inner
            self.codings = codings
            self.deadline = time.monotonic() + deadline_s

        def __iter__(self) -> Iterator[bytes]:
            received = 0
            for chunk in _inflate.decoded(self.inner, self.codings, label):
                received += len(chunk)
                if received > MAX_REPLY_BYTES:
                    raise BackendError(
                        f"{label}: the reply was larger than {MAX_REPLY_BYTES / 2**20:.3g} MiB"
                        f"{' once decompressed' if self.codings else ''}; stopped reading it",
                        hint="a server or proxy that sends this much is misbehaving; check "
                        "base_url, or lower max_tokens if the model really writes that much",
                    )
                if time.monotonic() > self.deadline:
                    raise _deadline_error(label, deadline_s)
                yield chunk

        def close(self) -> None:
            self.inner.close()

    def bound(response: Any) -> None:
        values = response.headers.get_list("content-encoding", split_commas=True)
        codings = _inflate.codings(values, label)
        if codings:
            del response.headers["content-encoding"]  # decoded in Bounded, not by the library
        response.stream = Bounded(response.stream, codings)
        ctype = response.headers.get("content-type", "").lower()
        if response.is_success and "html" in ctype:
            response.read()
            page = where.clean(page_text(response.text))  # a proxy's page may echo headers
            raise TransientError(
                f"{label}: an HTML page answered, not the API: {page!r}", hint=PROXY_HINT
            )

    local = loopback_host(where.base_url)
    return sdk.DefaultHttpxClient(
        headers={"Accept-Encoding": _inflate.ACCEPT_ENCODING},
        event_hooks={"request": [start], "response": [bound]},
        mounts={f"all://{local}": None} if local else None,  # None: straight, never proxied
    )
