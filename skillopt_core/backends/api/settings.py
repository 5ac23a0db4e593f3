"""Settings shared by the API backends, read from backend options and the usual environment.

Options arrive from config files (typed) or ``--option KEY=VALUE`` (strings), so every reader
here accepts both.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from skillopt_core.backends._protocol import BackendUnavailable, CompletionRequest
from skillopt_core.backends.options import DEFAULT_TIMEOUT_S, seconds
from skillopt_core.errors import UsageError

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"

Structured = Literal["native", "instruct"]

RESPONSES_ONLY = ("*-pro", "*-pro-*", "*codex*", "computer-use*", "*deep-research*")
"""Model families served only by the Responses API."""

REASONING = ("o1*", "o3*", "o4*", "gpt-5*")
"""Families that reject a non-default temperature."""

API_OPTIONS = ("model", "base_url", "api_key", "stream", "timeout", "deadline", "structured")
"""Option keys every API backend reads (see :mod:`skillopt_core.backends.options`)."""


def flag(options: Mapping[str, Any], key: str, default: bool = False) -> bool:
    value = options.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"option {key}={value!r} must be true or false")


def text_option(options: Mapping[str, Any], key: str, env: str | None = None) -> str | None:
    value = options.get(key)
    if value not in (None, ""):
        return str(value)
    if env:
        return os.environ.get(env) or None
    return None


def timeout_option(options: Mapping[str, Any]) -> float:
    """``timeout`` bounds each read of a reply; ``deadline`` the whole reply (see ``_guard``)
    and a server's ``Retry-After`` waits (:func:`.options.deadline_seconds`)."""
    return seconds(options.get("timeout"), "timeout", DEFAULT_TIMEOUT_S)


def matches(model: str, patterns: tuple[str, ...]) -> bool:
    name = model.rsplit("/", 1)[-1].lower()
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def structured_mode(options: Mapping[str, Any], default: Structured) -> Structured:
    value = str(options.get("structured") or default).lower()
    if value not in ("native", "instruct"):
        raise UsageError("option structured must be 'native' or 'instruct'")
    return "native" if value == "native" else "instruct"


def schema_instruction(request: CompletionRequest) -> str:
    """The demand appended to the system text when the provider's structured output is not used."""
    schema = json.dumps(dict(request.json_schema or {}), sort_keys=True)
    return (
        "Reply with only a JSON value (no prose, no code fence) matching this JSON schema:\n"
        + schema
    )


def system_text(request: CompletionRequest, instruct_schema: bool) -> str | None:
    """System text plus any system-role messages, plus the schema demand when instructed."""
    parts = [request.system] if request.system else []
    parts += [m.content for m in request.messages if m.role == "system"]
    if instruct_schema and request.json_schema is not None:
        parts.append(schema_instruction(request))
    return "\n\n".join(parts) or None


def require_model(name: str, model: str, env: str) -> str:
    chosen = model or os.environ.get(env, "")
    if not chosen:
        raise BackendUnavailable(
            f"{name}: no model chosen",
            hint=f"name one in the spec ({name}:MODEL) or set {env}",
        )
    return chosen


class AzureCliToken:
    """Bearer tokens for Azure OpenAI from the Azure CLI (``az login``), cached until near expiry."""

    SCOPE = "https://cognitiveservices.azure.com/.default"

    def __init__(self, az: str | None = None) -> None:
        self._az = az or shutil.which("az")
        self._token = ""
        self._expires = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            if self._token and time.time() < self._expires - 300:
                return self._token
            if not self._az:
                raise BackendUnavailable(
                    "azure-openai: no API key and no Azure CLI found",
                    hint="set AZURE_OPENAI_API_KEY, or install the Azure CLI and run `az login`",
                )
            done = subprocess.run(
                [self._az, "account", "get-access-token", "--scope", self.SCOPE, "-o", "json"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            if done.returncode != 0:
                raise BackendUnavailable(
                    f"azure-openai: `az account get-access-token` failed: {done.stderr.strip()}",
                    hint="run `az login` (and `az account set --subscription ...`)",
                )
            data = json.loads(done.stdout)
            self._token = str(data["accessToken"])
            self._expires = float(data.get("expires_on") or time.time() + 600)
            return self._token


@dataclass(frozen=True)
class AzureSettings:
    endpoint: str
    deployment: str
    api_version: str
    api_key: str | None

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], model: str, *, from_env: bool = True
    ) -> AzureSettings | None:
        """Azure settings when an endpoint is given: the ``azure_endpoint`` option, or (with
        ``from_env``, for the ``azure-openai`` backend) ``AZURE_OPENAI_ENDPOINT``; else None."""
        env = "AZURE_OPENAI_ENDPOINT" if from_env else None
        endpoint = text_option(options, "azure_endpoint", env)
        if endpoint is None:
            return None
        return cls(
            endpoint=endpoint.rstrip("/"),
            deployment=text_option(options, "deployment") or model,
            api_version=text_option(options, "api_version", "OPENAI_API_VERSION") or "2024-10-21",
            api_key=text_option(options, "api_key", "AZURE_OPENAI_API_KEY"),
        )
