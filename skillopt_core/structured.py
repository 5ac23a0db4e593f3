"""Structured (JSON) replies: repair near-JSON, validate against a schema, re-ask once.

Models wrap JSON in prose or code fences, leave trailing commas, or stop mid-object. We repair what
is safely repairable, validate with jsonschema, and otherwise raise a clear error — callers decide
whether to drop the work item (reflection) or fail the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import jsonschema

from skillopt_core.backends._protocol import Backend, CompletionRequest, Message
from skillopt_core.errors import SkillOptError

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class StructuredReplyError(SkillOptError, ValueError):
    """The reply could not be read as JSON matching the schema (even after repair)."""

    def __init__(self, message: str, *, reply: str = "", hint: str = "") -> None:
        super().__init__(
            message,
            hint=hint or "use a model that follows JSON instructions (or option structured=native)",
        )
        self.reply = reply


def _candidates(text: str) -> list[str]:
    """Plausible JSON substrings, most specific first."""
    found = [m.group(1) for m in _FENCE.finditer(text)]
    stripped = text.strip()
    found.append(stripped)
    for opener, closer in (("{", "}"), ("[", "]")):
        start = stripped.find(opener)
        end = stripped.rfind(closer)
        if start != -1 and end > start:
            found.append(stripped[start : end + 1])
        if start != -1:
            found.append(stripped[start:])
    return found


def _close_truncated(text: str) -> str:
    """End a reply that stopped early at its last complete value, then close what is open.

    An element of an array that was still being written is dropped whole, so a cut edit never
    arrives as one whose content ends mid-word (``"Never run`` of "Never run migrations
    without a backup"); an object outside any array keeps its complete members. Each open
    container is ``[closer, where its complete members end]``."""
    stack: list[list[Any]] = []
    in_string = escaped = False
    for at, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(["}" if char == "{" else "]", at + 1])
        elif char in "}]" and stack:
            stack.pop()
            if stack:
                stack[-1][1] = at + 1
        elif char == "," and stack:
            stack[-1][1] = at
    if not stack:  # a quote left open outside any container: close it, keep the rest
        return text + '"' if in_string else text
    arrays = [depth for depth, (closer, _) in enumerate(stack) if closer == "]"]
    keep = arrays[-1] + 1 if arrays else len(stack)
    cut = stack[keep - 1][1]
    head = re.sub(r",\s*$", "", text[:cut].rstrip())
    return head + "".join(closer for closer, _ in reversed(stack[:keep]))


def _loads_lenient(text: str) -> Any:
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            continue
    return json.loads(_TRAILING_COMMA.sub(r"\1", _close_truncated(text)))


def parse_json_reply(text: str, schema: Mapping[str, Any] | None = None) -> Any:
    """Parse ``text`` as JSON (repairing fences, prose, trailing commas, truncation) and validate."""
    errors: list[str] = []
    for candidate in _candidates(text):
        try:
            value = _loads_lenient(candidate)
        except json.JSONDecodeError as exc:
            errors.append(f"not JSON: {exc.msg}")
            continue
        if schema is not None:
            try:
                jsonschema.validate(value, schema)
            except jsonschema.ValidationError as exc:
                path = "/".join(str(p) for p in exc.absolute_path) or "(root)"
                errors.append(f"schema: {exc.message} at {path}")
                continue
        return value
    detail = errors[-1] if errors else "empty reply"
    raise StructuredReplyError(f"reply is not valid JSON for the schema ({detail})", reply=text)


def _cut_short(error: StructuredReplyError, request: CompletionRequest) -> StructuredReplyError:
    """Why a reply the server cut at ``max_tokens`` does not parse (the JSON never ended)."""
    return StructuredReplyError(
        f"the reply was cut off at its limit of {request.max_tokens} tokens before its JSON "
        f"ended ({error})",
        reply=error.reply,
        hint="the model wrote more than one reply may hold: a reasoning model can spend the "
        "limit on thinking, so use one that answers more briefly",
    )


def complete_json(
    backend: Backend,
    request: CompletionRequest,
    schema: Mapping[str, Any],
    *,
    reask: int = 1,
) -> Any:
    """Call ``backend`` for a JSON reply; on a bad reply, re-ask (showing the error) up to ``reask`` times."""
    request = replace(request, json_schema=schema)
    completion = backend.complete(request)
    for attempt in range(reask + 1):
        try:
            return parse_json_reply(completion.text, schema)
        except StructuredReplyError as exc:
            failure = _cut_short(exc, request) if completion.truncated else exc
            if attempt == reask:
                raise failure from None
            shorter = " shorter" if completion.truncated else ""
            correction = (
                f"Your previous reply could not be used: {failure}. Reply again with only a"
                f"{shorter} JSON value matching this schema:\n{json.dumps(dict(schema))}"
            )
            request = replace(
                request,
                messages=(
                    *request.messages,
                    Message("assistant", completion.text),
                    Message("user", correction),
                ),
                metadata={**request.metadata, "reask": attempt + 1},
            )
            completion = backend.complete(request)
    raise AssertionError("unreachable")  # pragma: no cover
