"""Flatten a CompletionRequest into one prompt text, for backends that take a single prompt.

The harness CLIs and the hand-off directory have no message list or structured-output switch,
so the system text, the conversation and any JSON-schema demand are rendered into the prompt.
"""

from __future__ import annotations

import json

from skillopt_core.backends._protocol import CompletionRequest


def render_prompt(request: CompletionRequest) -> str:
    """System, conversation (labelled when it has several turns), and the schema demand."""
    parts = [request.system] if request.system else []
    if len(request.messages) == 1:
        parts.append(request.messages[0].content)
    else:
        turns = [f"{m.role.capitalize()}: {m.content}" for m in request.messages]
        parts.append(
            "Continue this conversation; reply as the assistant to the last user turn.\n\n"
            + "\n\n".join(turns)
        )
    if request.json_schema is not None:
        parts.append(
            "Reply with only a JSON value (no prose, no code fence) matching this JSON schema:\n"
            + json.dumps(dict(request.json_schema), sort_keys=True)
        )
    return "\n\n".join(parts)
