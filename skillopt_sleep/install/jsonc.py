"""Read JSON with comments (JSONC), the format VS Code accepts for its ``mcp.json``.

JSONC is JSON plus ``//`` line comments, ``/* */`` block comments and trailing commas before
``}`` or ``]``. :func:`strip_jsonc` blanks those out, character for character, and leaves strings
alone (a ``//`` in a URL, an escaped quote), so the result is plain JSON whose parse errors still
point at the user's line and column; :func:`loads` parses it and says whether the text held a
comment, which the installer must not silently drop by rewriting the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Stripped:
    """``text`` as plain JSON (same length, same line breaks); whether it held a comment."""

    text: str
    comments: bool


def _blank(chunk: str) -> str:
    """A comment's replacement: spaces, keeping its line breaks so positions stay true."""
    return "".join(c if c in "\r\n" else " " for c in chunk)


def strip_jsonc(text: str) -> Stripped:
    """``text`` with its comments and trailing commas blanked out; a block comment left open is a
    :class:`json.JSONDecodeError` (anything else malformed is left for :func:`json.loads`)."""
    out: list[str] = []
    comments = False
    last_comma = -1  # index in ``out`` of a comma after a value with only blanks after it yet
    after_value = False  # the last thing seen may end a value (``[,]`` keeps its comma, an error)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            last_comma, after_value, i = -1, True, end + 1
            continue
        if text.startswith("//", i):
            end = n
            for stop in ("\n", "\r"):
                found = text.find(stop, i)
                end = found if 0 <= found < end else end
            out.append(_blank(text[i:end]))
            comments, i = True, end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise json.JSONDecodeError("unterminated /* comment", text, i)
            out.append(_blank(text[i : end + 2]))
            comments, i = True, end + 2
            continue
        if c in "}]" and last_comma >= 0:
            out[last_comma] = " "
        if not c.isspace():
            last_comma = len(out) if c == "," and after_value else -1
            after_value = c not in "[{,:"
        out.append(c)
        i += 1
    return Stripped("".join(out), comments)


def loads(text: str) -> tuple[Any, bool]:
    """The value ``text`` holds, and whether it held a comment; a :class:`json.JSONDecodeError`
    (a ValueError) when it is not JSONC."""
    stripped = strip_jsonc(text)
    return json.loads(stripped.text), stripped.comments
