"""``anthropic``: the Anthropic SDK's Messages API (``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``).

The current Messages API takes no sampling temperature, so ``request.temperature`` is not sent.

One attempt per call (``max_retries=0``); the managed wrapper retries, pools and meters.

Options: ``base_url``, ``api_key`` (or ``ANTHROPIC_AUTH_TOKEN`` for a bearer token), ``stream``,
``timeout`` (each read), ``deadline`` (the whole reply; see ``_guard``), ``structured`` (instruct
by default: the schema demand goes in the system text; ``native`` uses the API's structured
output, which only recent models support).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import (
    BackendError,
    BackendUnavailable,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    Usage,
    token_total,
)
from skillopt_core.backends.api import settings as cfg
from skillopt_core.backends.api._lazy import LazyClient
from skillopt_core.backends.api.errors import Endpoint, cleaned, translate, unavailable
from skillopt_core.backends.retry import TransientError

ANTHROPIC_DEFAULT_BASE = "https://api.anthropic.com"


@dataclass(frozen=True)
class AnthropicSettings:
    model: str
    base_url: str
    api_key: str | None
    auth_token: str | None
    stream: bool
    timeout_s: float
    deadline_s: float
    structured: cfg.Structured

    @classmethod
    def from_options(cls, model: str, options: Mapping[str, Any]) -> AnthropicSettings:
        return cls(
            model=cfg.require_model(
                "anthropic", model or str(options.get("model") or ""), "ANTHROPIC_MODEL"
            ),
            base_url=cfg.text_option(options, "base_url", "ANTHROPIC_BASE_URL")
            or ANTHROPIC_DEFAULT_BASE,
            **_one_credential(options),
            stream=cfg.flag(options, "stream"),
            timeout_s=cfg.timeout_option(options),
            deadline_s=backend_options.deadline_seconds(options),
            structured=cfg.structured_mode(options, "instruct"),
        )


def _one_credential(options: Mapping[str, Any]) -> dict[str, str | None]:
    """The key or the bearer token, never both: the SDK refuses both ("Pass at most one of
    api_key=, auth_token="), and shells often export both (a proxy's token beside a key). One
    given as an option beats the environment; from the same place, the key wins."""
    api_key = cfg.text_option(options, "api_key", "ANTHROPIC_API_KEY")
    auth_token = cfg.text_option(options, "auth_token", "ANTHROPIC_AUTH_TOKEN")
    if api_key and auth_token:
        token_given = options.get("auth_token") not in (None, "")
        key_given = options.get("api_key") not in (None, "")
        if token_given and not key_given:
            api_key = None
        else:
            auth_token = None
    return {"api_key": api_key, "auth_token": auth_token}


class AnthropicBackend(LazyClient):
    """Thread-safe: one SDK client (and its connection pool) per backend instance.

    ``ping``, when set (by the managed layer), makes the health check's one-token completion
    (for a proxy without a model list) instead of :meth:`complete`, so that it is metered."""

    name = "anthropic"
    ping: Callable[[CompletionRequest], Completion] | None = None

    def __init__(self, settings: AnthropicSettings) -> None:
        self.model = settings.model
        self.settings = settings
        bearer = bool(settings.auth_token and not settings.api_key)  # the key the server saw
        self.endpoint = Endpoint(
            self.name,
            settings.base_url,
            "ANTHROPIC_AUTH_TOKEN" if bearer else "ANTHROPIC_API_KEY",
            model=settings.model,
            secret=settings.api_key or settings.auth_token,
            key_option="auth_token" if bearer else "api_key",
        )

    def _make_client(self) -> Any:
        s = self.settings
        if not (s.api_key or s.auth_token):
            raise BackendUnavailable(
                "anthropic: no API key",
                hint="export ANTHROPIC_API_KEY=... (or --option api_key=...); with only a Claude "
                "subscription use the claude-cli backend instead",
            )
        import anthropic

        from skillopt_core.backends.api import _guard

        return anthropic.Anthropic(
            http_client=_guard.http_client(anthropic, self.endpoint, s.deadline_s),
            api_key=s.api_key,
            auth_token=s.auth_token,
            base_url=s.base_url,
            timeout=s.timeout_s,
            max_retries=0,
        )

    def health_check(self) -> None:
        """List models (free); a proxy without a model list gets a one-token ping instead."""
        try:
            self.client().with_options(timeout=min(self.settings.timeout_s, 30.0)).models.list(
                limit=1
            )
        except BackendError as exc:
            raise unavailable(exc, self.endpoint) from exc
        except Exception as exc:
            error = translate(exc, self.endpoint)
            if getattr(exc, "status_code", None) != 404:
                raise unavailable(error, self.endpoint) from exc
            try:
                (self.ping or self.complete)(
                    CompletionRequest.of("Reply with OK.", max_tokens=16, purpose="ping")
                )
            except BudgetExceeded:
                raise
            except BackendError as ping_error:
                raise unavailable(ping_error, self.endpoint) from ping_error

    def complete(self, request: CompletionRequest) -> Completion:
        s = self.settings
        native = request.json_schema is not None and s.structured == "native"
        kwargs: dict[str, Any] = {
            "model": s.model,
            "max_tokens": request.max_tokens,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        system = cfg.system_text(request, instruct_schema=not native)
        if system:
            kwargs["system"] = system
        if native:
            kwargs["output_config"] = {
                "format": {"type": "json_schema", "schema": dict(request.json_schema or {})}
            }
        try:
            messages = self.client().messages
            if s.stream:
                with messages.stream(**kwargs) as stream:
                    message = stream.get_final_message()
                if message.stop_reason is None:
                    raise TransientError(
                        f"{self.endpoint.label}: the stream ended before the reply was finished"
                    )
            else:
                message = messages.create(**kwargs)
            return self._read(message)
        except BackendError as exc:
            raise cleaned(exc, self.endpoint)  # noqa: B904 - the same error, cleaned
        except Exception as exc:
            raise translate(exc, self.endpoint) from exc

    @staticmethod
    def _read(message: Any) -> Completion:
        """The completion in a Messages reply. Missing content raises a TypeError or an
        AttributeError here, which :func:`translate` names; missing or absurd usage counts as none
        (the managed layer then estimates it)."""
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = getattr(message, "usage", None)

        def tokens(*names: str) -> int | None:
            return token_total(*(getattr(usage, name, None) for name in names))

        prompt = tokens("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        output = tokens("output_tokens")
        return Completion(
            text=text,
            # a figure that is no token count (text, negative, absurd) makes the usage unknown
            usage=Usage() if prompt is None or output is None else Usage(prompt, output),
            model=str(getattr(message, "model", None) or ""),
            truncated=getattr(message, "stop_reason", None) == "max_tokens",
        )


@BACKENDS.register("anthropic")
def _create(spec: BackendSpec, options: Mapping[str, Any]) -> AnthropicBackend:
    return AnthropicBackend(AnthropicSettings.from_options(spec.model, options))


backend_options.declare("anthropic", (*cfg.API_OPTIONS, "auth_token"))
