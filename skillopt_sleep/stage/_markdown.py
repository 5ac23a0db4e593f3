"""Markdown that user- or model-written text cannot restructure: escaped inline text, code spans
and fenced blocks that no backtick run inside them can end early, and tables.

Requests, edits and paths reach the report as they were written; a ``<script>``, a stray ```
or a ``|`` in them must stay text, so every piece of them goes through one of these. Nor may
they become links: GitHub-flavoured Markdown links a bare ``https://…``, ``www.…`` or e-mail
address in text (escaping does not stop it), and a renderer with linkify on (markdown-it's
``linkify: true``, as VS Code's preview uses) links a bare host too (``evil.com/login``,
``setup.py``: ``.py`` is a country's domain, ``10.0.0.1/admin``, ``//host``), never one in a code
span, so :func:`inline` shows such a word as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SPECIAL = re.compile(r"([\\`*_\[\]<>&|#~!])")
# what an autolinker looks for: a scheme's "://", a "//host", a "www." host, "mailto:"/"xmpp:",
# an e-mail address, an IPv4 address, "localhost:"; a word with one anywhere is code
# (over-matching costs nothing: "1.2.3.4" reads the same as code)
_LINKABLE = re.compile(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://|//[^\s/]|www\.|(?:mailto|xmpp):|@[\w-]+\.\w"
    r"|(?<!\d)\d{1,3}(?:\.\d{1,3}){3}|localhost:",
    re.I,
)
# A bare host, as linkify-it finds one: a name that ends in a dot and a top-level domain and
# starts the word or follows a character that is not a letter, a digit, ".", "-", or one of the
# characters a host never holds ("/", "\\", ":", "@", "_"): "evil.com/login", "(evil.com)",
# "x*evil.com" and "setup.py" (Paraguay) are hosts, "docs/deploy.md" and "x_evil.com" are not.
# A domain is any two letters (a renderer may know more country domains than linkify-it), "xn--",
# or a longer one a linkifier knows (linkify-it's fuzzy list and common new ones), so
# "report.json", "os.path.join" and "Mr.Smith" stay text.
_NOT_IN_A_HOST = re.compile(r"[/\\:@_]")
_BEFORE_A_HOST = re.compile(r"[^\w.-]")
_HOST_END = re.compile(
    r"[^\s.]\.(?:xn--|(?:[^\W\d_]{2}|com|net|org|edu|gov|mil|int|biz|info|pro|name|museum|coop"
    r"|aero|asia|shop|xxx|web|dev|app|xyz|site|online|tech|cloud|top|club|store|blog)"
    r"(?![^\W\d_]))",
    re.I,
)


def _linkable(word: str) -> bool:
    """``word`` holds what an autolinker or linkify would make a link of (linear in ``word``)."""
    if _LINKABLE.search(word):
        return True
    for index, part in enumerate(_NOT_IN_A_HOST.split(word)):
        before = _BEFORE_A_HOST.search(part) if index else None
        if (index == 0 or before) and _HOST_END.search(part, before.end() if before else 0):
            return True
    return False


def inline(text: object) -> str:
    """Inline Markdown text: one line, every character that could start markup escaped, and a
    word an autolinker would make a link of shown as code (:func:`code`).

    A word is what lies between spaces: a ``|`` inside one is kept out of the code spans (a code
    span does not hide it from a table) but does not end the word, as linkify reads ``a|.com``
    as one host."""
    words = " ".join(str(text).split()).split(" ")
    return " ".join(
        "\\|".join(code(part) if part else "" for part in word.split("|"))
        if _linkable(word)
        else _SPECIAL.sub(r"\\\1", word)
        for word in words
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
