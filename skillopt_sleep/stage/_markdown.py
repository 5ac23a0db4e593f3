"""Markdown that user- or model-written text cannot restructure: escaped inline text, code spans
and fenced blocks that no backtick run inside them can end early, and tables.

Requests, edits and paths reach the report as they were written; a ``<script>``, a stray ```
or a ``|`` in them must stay text, so every piece of them goes through one of these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SPECIAL = re.compile(r"([\\`*_\[\]<>&|#~!])")


def inline(text: object) -> str:
    """Inline Markdown text: one line, every character that could start markup escaped."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def code(text: object) -> str:
    """An inline code span (one line) that no backtick inside ``text`` can end early."""
    flat = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fence(text: str, info: str = "") -> str:
    """A fenced block that no backtick run inside ``text`` can close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{marks}{info}\n{body}{marks}"


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    head = list(header)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def indent(block: str) -> str:
    """Indent a fenced block under a numbered list item (so it stays inside the item)."""
    return "\n".join("   " + line if line else line for line in block.split("\n"))
