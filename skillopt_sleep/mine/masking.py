"""Masked spans never make two requests similar.

Before a request is embedded, the spans that vary between occurrences of one task, or that two
unrelated tasks share by accident, are removed: redaction placeholders (``[REDACTED:github-token]``
appears in any request that pasted a token), URLs, e-mail addresses, UUIDs and hashes, version
numbers and other numbers, and the directory part of paths (``/home/ana/projects/churn/x.ipynb``
keeps only ``x``: the file a request is about names its object; the folders it sits in do not),
and the marker left where the middle of a long request was cut (``CUT_MARKER``: every long request
has one).

A request with no letter left once masked (only a pasted secret, a URL, numbers or punctuation:
``content`` is empty) has nothing to compare: it is never a request of its own (``candidates``)
and never alike any other (``families``).

Only the text that is *compared* is masked; the request a replay sends is never changed.
"""

from __future__ import annotations

import re

# a path (rooted, or with two slashes, or ending in a file extension; not "and/or" or "A/B"):
# keep the last component's stem ("src/components/Navbar.tsx" -> "Navbar")
_PATH = re.compile(
    r"(?<![\w/])(?:(?:~|\.{1,2})?/(?:[\w.@-]+/)*|[\w.@-]+/(?:[\w.@-]+/)+|(?:[\w.@-]+/)+(?=[\w-]+\.[A-Za-z]\w{0,5}\b))"
    r"([\w-]+)(?:\.[A-Za-z]\w{0,5})*(?![\w/])"
)
# where harvest or mining cut the middle out of a long text (harvest writes the same marker)
CUT_MARKER = "[… {} characters cut …]"
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\[… \d+ characters cut …\]"), " "),
    (re.compile(r"\[REDACTED:[^\]]*\]"), " "),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE), " "),
    (re.compile(r"\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b"), " "),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), " "),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.IGNORECASE), " "),
    (_PATH, r" \1 "),
    (re.compile(r"\bv?\d+(?:[.,:]\d+)+\w*"), " "),
    (re.compile(r"\d+"), " "),
)
_SPACE = re.compile(r"[ \t]+")
_LETTER = re.compile(r"[^\W\d_]")


def mask(text: str) -> str:
    """``text`` with placeholders, URLs, ids, hashes, numbers and path directories removed."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return _SPACE.sub(" ", text).strip()


def content(text: str) -> str:
    """``mask(text)``, or "" when no letter is left in it: nothing to compare."""
    masked = mask(text)
    return masked if _LETTER.search(masked) else ""
