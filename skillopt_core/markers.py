"""Markers the engine puts in every prompt it sends, so its own sessions are never mined.

Backends already run the harness CLIs without persistence; a harvested session containing this
marker is the second line of defence and is dropped.
"""

from __future__ import annotations

ENGINE_MARKER = "<!-- skillopt-sleep:engine -->"


def is_engine_text(text: str) -> bool:
    return ENGINE_MARKER in text
