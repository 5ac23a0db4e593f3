"""``openai``: the OpenAI SDK — api.openai.com, any OpenAI-compatible server, or Azure OpenAI.

Chat Completions by default; the Responses API when ``--option api=responses`` or when the model
family is served only there. One attempt per call (``max_retries=0``): retries, pooling and
budgets are the managed wrapper's job.

Options: ``base_url`` (``OPENAI_BASE_URL``), ``api_key`` (``OPENAI_API_KEY``), ``api``
(chat | responses | auto), ``stream``, ``timeout`` (each read), ``deadline`` (the whole reply; see
``_guard``), ``structured`` (native | instruct);
Azure: ``azure_endpoint`` (``AZURE_OPENAI_ENDPOINT``, read by ``azure-openai`` only: set for
other tools it must not turn ``openai`` away from its base URL), ``deployment``, ``api_version``,
and ``api_key`` (``AZURE_OPENAI_API_KEY``) or else an Azure CLI token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from skillopt_core.backends import BACKENDS, BackendSpec
from skillopt_core.backends import options as backend_options
from skillopt_core.backends._protocol import (
    BackendError,
    BackendUnavailable,
    BudgetExceeded,
    Completion,
    CompletionRequest,
    Usage,
)
from skillopt_core.backends.api import settings as cfg
from skillopt_core.backends.api._lazy import LazyClient
from skillopt_core.backends.api.errors import (
    PROXY_HINT,
    Endpoint,
    cleaned,
    translate,
    unavailable,
)
from skillopt_core.backends.retry import TransientError
from skillopt_core.errors import UsageError

Api = Literal["chat", "responses"]


@dataclass(frozen=True)
class OpenAISettings:
    model: str
    base_url: str
    api_key: str | None
    api: Api
    stream: bool
    timeout_s: float
    deadline_s: float
    structured: cfg.Structured
    azure: cfg.AzureSettings | None

    @classmethod
    def from_options(cls, name: str, model: str, options: Mapping[str, Any]) -> OpenAISettings:
        model = cfg.require_model(name, model or str(options.get("model") or ""), "OPENAI_MODEL")
        # the environment's Azure endpoint is azure-openai's: set for other tools, it must not
        # turn ``openai`` (and its key) towards Azure past its base_url
        azure = cfg.AzureSettings.from_options(options, model, from_env=name == "azure-openai")
        if name == "azure-openai" and azure is None:
            raise BackendUnavailable(
                "azure-openai: no endpoint configured",
                hint="set AZURE_OPENAI_ENDPOINT or --option azure_endpoint=https://NAME.openai.azure.com",
            )
        base_url = cfg.text_option(options, "base_url", "OPENAI_BASE_URL")
        official = base_url is None or "api.openai.com" in base_url
        api_choice = str(options.get("api") or "auto").lower()
        if api_choice not in ("auto", "chat", "responses"):
            raise UsageError("option api must be chat, responses or auto")
        api: Api = "chat"
        if api_choice == "responses" or (
            api_choice == "auto" and cfg.matches(model, cfg.RESPONSES_ONLY)
        ):
            api = "responses"
        return cls(
            model=model,
            base_url=azure.endpoint if azure else (base_url or cfg.OPENAI_DEFAULT_BASE),
            api_key=azure.api_key
            if azure
            else cfg.text_option(options, "api_key", "OPENAI_API_KEY"),
            api=api,
            stream=cfg.flag(options, "stream"),
            timeout_s=cfg.timeout_option(options),
            deadline_s=backend_options.deadline_seconds(options),
            structured=cfg.structured_mode(options, "native" if official or azure else "instruct"),
            azure=azure,
        )

    @property
    def official(self) -> bool:
        return self.azure is not None or "api.openai.com" in self.base_url


class OpenAIBackend(LazyClient):
    """Thread-safe: one SDK client (and its connection pool) per backend instance.

    ``ping``, when set (by the managed layer), makes the health check's one-token completion
    (for a server without a model list) instead of :meth:`complete`, so that it is metered."""

    ping: Callable[[CompletionRequest], Completion] | None = None

    def __init__(self, name: str, settings: OpenAISettings) -> None:
        self.name = name
        self.model = settings.model
        self.settings = settings
        key_env = "AZURE_OPENAI_API_KEY" if settings.azure else "OPENAI_API_KEY"
        self.endpoint = Endpoint(
            name, settings.base_url, key_env, model=settings.model, secret=settings.api_key
        )

    def _make_client(self) -> Any:
        import openai

        from skillopt_core.backends.api import _guard

        s = self.settings
        http = _guard.http_client(openai, self.endpoint, s.deadline_s)
        if s.azure is not None:
            auth: dict[str, Any] = (
                {"api_key": s.azure.api_key}
                if s.azure.api_key
                else {"azure_ad_token_provider": cfg.AzureCliToken()}
            )
            return openai.AzureOpenAI(
                azure_endpoint=s.azure.endpoint,
                azure_deployment=s.azure.deployment,
                api_version=s.azure.api_version,
                timeout=s.timeout_s,
                max_retries=0,
                http_client=http,
                **auth,
            )
        if not s.api_key and s.official:
            raise BackendUnavailable(
                f"{self.name}: no API key",
                hint="export OPENAI_API_KEY=... (or --option api_key=...); for a local "
                "OpenAI-compatible server set OPENAI_BASE_URL / --option base_url=",
            )
        return openai.OpenAI(
            api_key=s.api_key or "not-needed",
            base_url=s.base_url,
            timeout=s.timeout_s,
            max_retries=0,
            http_client=http,
        )

    # --- protocol --------------------------------------------------------------------------------

    def health_check(self) -> None:
        """List models (free); a server without a model list gets a one-token ping instead."""
        try:
            self.client().with_options(timeout=min(self.settings.timeout_s, 30.0)).models.list()
        except BackendError as exc:
            raise unavailable(exc, self.endpoint) from exc
        except Exception as exc:
            error = translate(exc, self.endpoint)
            if getattr(exc, "status_code", None) == 404:
                self._ping()
                return
            raise unavailable(error, self.endpoint) from exc

    def _ping(self) -> None:
        try:
            (self.ping or self.complete)(
                CompletionRequest.of("Reply with OK.", max_tokens=16, purpose="ping")
            )
        except BudgetExceeded:
            raise
        except BackendError as exc:
            raise unavailable(exc, self.endpoint) from exc

    def complete(self, request: CompletionRequest) -> Completion:
        try:
            if self.settings.api == "responses":
                text, usage, truncated = self._responses(request)
            else:
                text, usage, truncated = self._chat(request)
        except BackendError as exc:
            raise cleaned(exc, self.endpoint)  # noqa: B904 - the same error, cleaned
        except Exception as exc:
            raise translate(exc, self.endpoint) from exc
        return Completion(text=text, usage=usage, model=self.model, truncated=truncated)

    # --- Chat Completions ------------------------------------------------------------------------

    def _instruct(self, request: CompletionRequest) -> bool:
        return request.json_schema is not None and self.settings.structured == "instruct"

    def _chat(self, request: CompletionRequest) -> tuple[str, Usage, bool]:
        s = self.settings
        messages: list[dict[str, str]] = []
        system = cfg.system_text(request, self._instruct(request))
        if system:
            messages.append({"role": "system", "content": system})
        messages += [
            {"role": m.role, "content": m.content} for m in request.messages if m.role != "system"
        ]
        kwargs: dict[str, Any] = {"model": s.model, "messages": messages}
        kwargs["max_completion_tokens" if s.official else "max_tokens"] = request.max_tokens
        if not cfg.matches(s.model, cfg.REASONING):
            kwargs["temperature"] = request.temperature
        if request.json_schema is not None and s.structured == "native":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "reply",
                    "schema": dict(request.json_schema),
                    "strict": False,
                },
            }
        completions = self.client().chat.completions
        if not s.stream:
            reply = completions.create(**kwargs)
            if not reply.choices:
                raise TransientError(f"{self.name}: the reply had no choices")
            message = reply.choices[0].message
            # A refusal (``content`` null, ``refusal`` set) is an answer with nothing in it, as the
            # Responses API gives it: the caller scores it (a replay fails its checks) or drops it
            # (a reflection is no JSON). Raised, one refused replay ended the whole night.
            usage = reply.usage
            return (
                self._content_text(message.content),
                Usage(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0),
                reply.choices[0].finish_reason == "length",
            )
        parts: list[str] = []
        counted = Usage()
        finished = False
        truncated = False
        stream = completions.create(**kwargs, stream=True, stream_options={"include_usage": True})
        for chunk in stream:
            if chunk.choices:
                choice = chunk.choices[0]
                parts.append(choice.delta.content or "")
                finished = finished or choice.finish_reason is not None
                truncated = truncated or choice.finish_reason == "length"
            if chunk.usage:
                counted = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        if not finished:
            raise TransientError(f"{self.name}: the stream ended before the reply was finished")
        return "".join(parts), counted, truncated

    def _content_text(self, content: object) -> str:
        """A chat message's text: a string, or (as some compatible servers send) a list of text
        parts; anything else is no chat completion, and never reaches the caller as ``text``."""
        if content is None or isinstance(content, str):
            return content or ""
        if isinstance(content, list):
            texts = [p.get("text") if isinstance(p, dict) else None for p in content]
            if all(isinstance(t, str) for t in texts):
                return "".join(t for t in texts if isinstance(t, str))
        raise TransientError(
            f"{self.endpoint.label}: the reply was not a valid {self.name} response (its "
            f"message content is a {type(content).__name__}, not text)",
            hint=PROXY_HINT,
        )

    # --- Responses -------------------------------------------------------------------------------

    def _responses(self, request: CompletionRequest) -> tuple[str, Usage, bool]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "input": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
            "max_output_tokens": request.max_tokens,
            "store": False,
        }
        system = cfg.system_text(request, self._instruct(request))
        if system:
            kwargs["instructions"] = system
        if not cfg.matches(s.model, cfg.REASONING):
            kwargs["temperature"] = request.temperature
        if request.json_schema is not None and s.structured == "native":
            kwargs["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": "reply",
                    "schema": dict(request.json_schema),
                    "strict": False,
                }
            }
        responses = self.client().responses
        if not s.stream:
            return self._read_response(responses.create(**kwargs))
        for event in responses.create(**kwargs, stream=True):
            if event.type in ("response.completed", "response.incomplete"):
                return self._read_response(event.response)
            if event.type in ("response.failed", "error"):
                detail = getattr(getattr(event, "response", None), "error", None) or event
                raise TransientError(f"{self.name}: the response stream failed: {detail}")
        raise TransientError(f"{self.name}: the stream ended before response.completed")

    def _read_response(self, response: Any) -> tuple[str, Usage, bool]:
        if response.status == "failed":
            raise TransientError(f"{self.name}: the response failed: {response.error}")
        usage = response.usage
        details = getattr(response, "incomplete_details", None)
        truncated = response.status == "incomplete" and (
            getattr(details, "reason", None) == "max_output_tokens"
        )
        return (
            response.output_text or "",
            Usage(usage.input_tokens if usage else 0, usage.output_tokens if usage else 0),
            truncated,
        )


def _factory(name: str) -> Any:
    def create(spec: BackendSpec, options: Mapping[str, Any]) -> OpenAIBackend:
        return OpenAIBackend(name, OpenAISettings.from_options(name, spec.model, options))

    return create


OPTIONS = (*cfg.API_OPTIONS, "api", "azure_endpoint", "deployment", "api_version")
for _name in ("openai", "azure-openai"):
    BACKENDS.add(_name, _factory(_name))
    backend_options.declare(_name, OPTIONS)
