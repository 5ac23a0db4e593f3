"""Prompt templates live as Markdown files next to this module (``str.format`` placeholders).

Text a prompt quotes from transcripts, replies or earlier edits is data, not instructions: it is
put in a :func:`fenced` block it cannot close, under a heading that says so, and shown
:func:`without_placeholders`.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources


@cache
def load_prompt(name: str) -> str:
    return resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")


def fenced(text: str, info: str = "text") -> str:
    """``text`` in a backtick fence longer than any backtick run inside it, so no line of it can
    close the block (and a heading or "## Current skill" in it stays inside)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


_PLACEHOLDER_RE = re.compile(r"[ \t]?\[REDACTED:[a-z0-9-]+\]")


def without_placeholders(text: str) -> str:
    """``text`` without redaction placeholders (``[REDACTED:github-token]``): they say only that
    a secret was cut, which no procedure needs, and an optimizer shown one copies it into an
    edit (which the edit screen then refuses, with the procedure it carried)."""
    return _PLACEHOLDER_RE.sub("", text) if "[REDACTED:" in text else text


def one_line(text: str, limit: int = 120) -> str:
    """A label quoted inline (an item id): one line, no backticks, cut to ``limit``."""
    return " ".join(str(text).replace("`", "'").split())[:limit]
