"""Translate SDK exceptions into our error types, with the fix the user needs in the message.

Both official SDKs raise the same family (``APIStatusError`` with ``status_code`` and
``response``, ``APIConnectionError``, ``APITimeoutError``); a stream cut mid-way can also surface
as the HTTP library's transport error, and a truncated body as a JSON decode error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from skillopt_core.backends._protocol import BackendError, BackendUnavailable
from skillopt_core.backends.retry import TransientError, parse_retry_after

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class Endpoint:
    """What the messages name: the backend, where it points, and which key variable it reads."""

    backend: str
    base_url: str
    key_env: str


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def _is_transport_error(exc: BaseException) -> bool:
    """An httpx/httpx2 transport failure (read error, protocol error, timeout)."""
    return any(
        cls.__name__ in ("TransportError", "TimeoutException")
        and cls.__module__.split(".")[0].startswith("httpx")
        for cls in type(exc).__mro__
    )


def translate(exc: BaseException, where: Endpoint) -> BackendError:
    """The BackendError to raise for ``exc``: transient ones are retried by the caller."""
    name = type(exc).__name__
    label = f"{where.backend} at {where.base_url}"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        message = f"{label}: HTTP {status}: {getattr(exc, 'message', exc)}"
        if status in _TRANSIENT_STATUS or status >= 500:
            return TransientError(message, retry_after=_retry_after(exc))
        if status == 401:
            return BackendUnavailable(
                message,
                hint=f"the API key was rejected; set {where.key_env} (or --option api_key=...) "
                "to a valid key for this endpoint",
            )
        if status == 403:
            return BackendUnavailable(
                message, hint="the key has no access to this model or endpoint; check its project"
            )
        if status == 404:
            return BackendUnavailable(
                message,
                hint="the model or route does not exist here; check the model name and the base "
                f"URL ({where.base_url}; OpenAI-compatible servers usually end in /v1)",
            )
        return BackendError(message, hint="the provider refused the request as sent")
    if name == "APITimeoutError" or "Timeout" in name:
        return TransientError(
            f"{label}: the call timed out", hint="raise --option timeout=SECONDS for slow models"
        )
    if name == "APIConnectionError" or _is_transport_error(exc):
        return TransientError(
            f"{label}: connection failed ({exc})",
            hint=f"is the server at {where.base_url} running and reachable?",
        )
    if isinstance(exc, json.JSONDecodeError):
        return TransientError(f"{label}: the reply body was not complete JSON ({exc})")
    return BackendError(f"{label}: {name}: {exc}")


def unavailable(exc: BackendError, where: Endpoint) -> BackendUnavailable:
    """A health-check failure is always fatal: turn a transient error into 'unavailable'."""
    if isinstance(exc, BackendUnavailable):
        return exc
    hint = exc.hint or f"check that {where.base_url} is the right address and is up"
    return BackendUnavailable(f"{where.backend} health check failed: {exc.args[0]}", hint=hint)
