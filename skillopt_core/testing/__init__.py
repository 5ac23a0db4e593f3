"""Test doubles shipped with the library: loopback fake model servers for the provider APIs.

Used by our tests and benchmarks, and to run the real harness CLIs (Claude Code, Codex, Copilot)
offline against a model that answers from a script.
"""

from skillopt_core.testing._script import (
    WRONG_SCHEMA_TEXT,
    Fault,
    LoggedRequest,
    Reply,
    Responder,
    Step,
    default_responder,
)
from skillopt_core.testing._wire import estimate_tokens, request_text
from skillopt_core.testing.fake_server import FakeModelServer, classify
from skillopt_core.testing.scripted import ScriptedBackend

__all__ = [
    "WRONG_SCHEMA_TEXT",
    "FakeModelServer",
    "Fault",
    "LoggedRequest",
    "Reply",
    "Responder",
    "ScriptedBackend",
    "Step",
    "classify",
    "default_responder",
    "estimate_tokens",
    "request_text",
]
