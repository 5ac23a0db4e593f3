"""Translate SDK exceptions into our error types, with the fix the user needs in the message.

Both official SDKs raise the same family (``APIStatusError`` with ``status_code`` and
``response``, ``APIConnectionError``, ``APITimeoutError``); a stream cut mid-way can also surface
as the HTTP library's transport error, a truncated body as a JSON decode error, bytes that are
not UTF-8 as a Unicode decode error, and a reply of
the wrong shape (a proxy's JSON, fields missing) as an attribute or type error while reading it.
What :mod:`._guard` raises arrives wrapped, and is found in the exception chain.

Every message passes :meth:`Endpoint.clean`: a server that echoes the key (or a base URL holding
credentials) must not put it in an error, a log or the spend journal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from skillopt_core.backends._protocol import BackendError, BackendUnavailable
from skillopt_core.backends.options import where_to_set
from skillopt_core.backends.retry import PassingUnavailable, TransientError, parse_retry_after
from skillopt_core.redaction import redact

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_NO_CREDIT = re.compile(
    r"insufficient_quota|exceeded your current quota|credit balance is too low", re.IGNORECASE
)
_SHAPE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, AssertionError)
"""Raised while reading a reply that lacks the fields the SDK's model promised."""

PROXY_HINT = (
    "a proxy, a captive portal or a server that does not speak this API may be answering; "
    "check base_url and the network"
)


@dataclass(frozen=True)
class Endpoint:
    """What the messages name: the backend, where it points, which key variable it reads and
    which model it asks for; ``secret`` (the key) is cut out of every message."""

    backend: str
    base_url: str
    key_env: str
    model: str = ""
    secret: str | None = None
    key_option: str = "api_key"

    @property
    def label(self) -> str:
        return f"{self.backend} at {redact(self.base_url)}"

    def clean(self, text: str) -> str:
        if self.secret and len(self.secret) >= 6:
            text = text.replace(self.secret, "[REDACTED:api-key]")
        return redact(text)


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
    """The BackendError to raise for ``exc`` (transient ones are retried by the caller), with
    every message cleaned of secrets."""
    return cleaned(_translate(exc, where), where)


def cleaned(error: BackendError, where: Endpoint) -> BackendError:
    """``error`` with its message and hint cleaned of secrets (one a backend raised itself may
    quote the server: a failed response's error, a stream's error event)."""
    error.args = (where.clean(error.message),)
    error.hint = where.clean(error.hint)
    return error


def _chained(exc: BaseException) -> BackendError | None:
    """A BackendError the SDK wrapped (one :mod:`._guard` raised inside the HTTP client)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, BackendError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _translate(exc: BaseException, where: Endpoint) -> BackendError:
    name = type(exc).__name__
    label = where.label
    status = getattr(exc, "status_code", None)
    guarded = _chained(exc)
    if guarded is not None:
        return guarded
    if isinstance(status, int):
        message = f"{label}: HTTP {status}: {getattr(exc, 'message', exc)}"
        if _NO_CREDIT.search(f"{message} {getattr(exc, 'body', '')}"):
            return BackendUnavailable(
                f"{label}: the account is out of quota or credit (HTTP {status})",
                hint=f"add credit or raise the quota (the provider's billing page) for the key "
                f"in {where.key_env}, or use another key; retrying will not help",
            )
        if status < 400:
            return TransientError(f"{label}: the reply stream reported an error: {exc}")
        if status in _TRANSIENT_STATUS or status >= 500:
            return TransientError(message, retry_after=_retry_after(exc))
        if status == 401:
            return BackendUnavailable(
                message,
                hint=f"the API key was rejected; set {where.key_env} (or --option {where.key_option}=...) "
                "to a valid key for this endpoint",
            )
        if status == 403:
            return BackendUnavailable(
                message,
                hint=f"the key in {where.key_env} has no access to this model or endpoint; "
                "check its project and permissions",
            )
        if status == 407:
            return BackendUnavailable(
                message,
                hint="a proxy between here and the server wants credentials: put them in the "
                "proxy URL (HTTPS_PROXY / HTTP_PROXY), or list the host in NO_PROXY if it needs "
                "no proxy",
            )
        if status == 404:
            route = (
                "the Anthropic SDK adds /v1/messages, so give it without /v1"
                if where.backend == "anthropic"
                else "OpenAI-compatible servers usually end in /v1"
            )
            return BackendUnavailable(
                message,
                hint=f"the model {where.model!r} or the route does not exist here; check the "
                f"model name and the base URL ({redact(where.base_url)}; {route})",
            )
        return BackendError(message, hint="the provider refused the request as sent")
    if name == "APITimeoutError" or "Timeout" in name:
        return TransientError(
            f"{label}: the call timed out",
            hint="for slow models raise timeout (seconds for each read) or deadline (for the "
            f"whole reply): {where_to_set('timeout=SECONDS', 'deadline=SECONDS')}",
        )
    if name == "APIConnectionError" or _is_transport_error(exc):
        return TransientError(
            f"{label}: connection failed ({exc})",
            hint=f"is the server at {redact(where.base_url)} running and reachable?",
        )
    if name == "APIError":  # an error event inside a 200 stream: the server failed mid-reply
        return TransientError(f"{label}: the reply stream reported an error: {exc}")
    if isinstance(exc, json.JSONDecodeError):
        if exc.doc.lstrip().startswith("<"):
            return TransientError(
                f"{label}: an HTML page answered, not the API: {exc.doc[:160]!r}",
                hint=PROXY_HINT,
            )
        return TransientError(f"{label}: the reply body was not complete JSON ({exc})")
    if isinstance(exc, UnicodeDecodeError):  # JSON is UTF-8: a damaged body, or no API at all
        return TransientError(
            f"{label}: the reply body was not UTF-8 text ({exc.reason} at byte {exc.start})",
            hint=PROXY_HINT,
        )
    if isinstance(exc, _SHAPE_ERRORS):
        return TransientError(
            f"{label}: the reply was not a valid {where.backend} response ({name}: {exc})",
            hint=PROXY_HINT,
        )
    return BackendError(f"{label}: {name}: {exc}")


def unavailable(exc: BackendError, where: Endpoint) -> BackendUnavailable:
    """A health-check failure is fatal: a transient error becomes 'unavailable', one that may
    pass (:class:`.retry.PassingUnavailable`) so that the managed layer retries the check."""
    if isinstance(exc, BackendUnavailable):
        return exc
    hint = exc.hint or f"check that {redact(where.base_url)} is the right address and is up"
    message = f"{where.backend} health check failed: {exc.message}"
    if isinstance(exc, TransientError):
        return PassingUnavailable(message, hint=hint, retry_after=exc.retry_after)
    return BackendUnavailable(message, hint=hint)
