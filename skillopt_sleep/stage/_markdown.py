"""Markdown that user- or model-written text cannot restructure: escaped inline text, code spans
and fenced blocks that no backtick run inside them can end early, and tables.

Requests, edits and paths reach the report as they were written; a ``<script>``, a stray ```
or a ``|`` in them must stay text, so every piece of them goes through one of these. Nor may
they become links: GitHub-flavoured Markdown links a bare ``https://…``, ``www.…`` or e-mail
address in text (escaping does not stop it), never one in a code span, so :func:`inline` shows
such a word as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SPECIAL = re.compile(r"([\\`*_\[\]<>&|#~!])")
# what an autolinker looks for: a scheme's "://", a "www." host, "mailto:"/"xmpp:", an e-mail
# address; a word with one anywhere is code (over-matching costs nothing: it reads the same)
_LINKABLE = re.compile(r"[a-z][a-z0-9+.-]*://|www\.|(?:mailto|xmpp):|[\w.+-]@[\w-]+\.\w", re.I)
_WORDS = re.compile(r"([^ |]+)")  # split at "|" too: a code span does not hide it from a table


def inline(text: object) -> str:
    """Inline Markdown text: one line, every character that could start markup escaped, and a
    word an autolinker would make a link of shown as code (:func:`code`)."""
    pieces = _WORDS.split(" ".join(str(text).split()))  # odd indexes: the words
    return "".join(
        code(piece) if odd % 2 and _LINKABLE.search(piece) else _SPECIAL.sub(r"\\\1", piece)
        for odd, piece in enumerate(pieces)
    )


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
