"""What the fake server answers: scripted replies, injected faults, and the request log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FaultKind = Literal["status", "truncated_json", "drop", "cut_stream", "slow"]


@dataclass(frozen=True)
class Reply:
    """One model answer. Token counts default to an estimate from the texts."""

    text: str
    delay_s: float = 0.0
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Fault:
    """A failure served instead of a reply to exactly one generation request.

    ``status``: an HTTP error in the provider's error shape (``retry_after`` sets the header).
    ``truncated_json``: a 200 whose JSON body (or stream) stops half-way.
    ``drop``: the connection closes before any response byte.
    ``cut_stream``: a streaming answer that stops after its first events, without the final ones.
    ``slow``: waits ``delay_s`` before answering with the default responder (clients time out).
    """

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    delay_s: float = 0.0
    message: str = ""

    @classmethod
    def http(cls, status: int, *, retry_after: float | None = None, message: str = "") -> Fault:
        return cls("status", status=status, retry_after=retry_after, message=message)

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0) -> Fault:
        return cls.http(429, retry_after=retry_after, message="Rate limit reached (fake)")

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls.http(status, message=f"The fake server failed with {status}")

    @classmethod
    def truncated_json(cls) -> Fault:
        return cls("truncated_json")

    @classmethod
    def drop(cls) -> Fault:
        return cls("drop")

    @classmethod
    def cut_stream(cls) -> Fault:
        return cls("cut_stream")

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        return cls("slow", delay_s=delay_s)


WRONG_SCHEMA_TEXT = '{"unexpected": "the fake ignored the requested schema"}'
"""A reply text that is valid JSON but matches no useful schema (for structured-reply tests)."""

Step = str | Reply | Fault
Responder = Callable[[Mapping[str, Any]], Step]


def default_responder(body: Mapping[str, Any]) -> Step:
    """Answer every request that nothing was scripted for."""
    return "ok"


@dataclass(frozen=True)
class LoggedRequest:
    """One request the fake server received, as tests inspect it."""

    method: str
    path: str
    api: str
    headers: Mapping[str, str]
    body: Mapping[str, Any] = field(default_factory=dict)
    raw: bytes = b""
    query: str = ""
    served: str = ""

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))
