"""Imports that register the real backends (each module registers itself in ``BACKENDS``)."""

from skillopt_core.backends import handoff  # noqa: F401
from skillopt_core.backends.api import anthropic_backend, openai_backend  # noqa: F401
from skillopt_core.backends.cli import claude, codex, copilot  # noqa: F401
