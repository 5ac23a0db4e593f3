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

# Scripts written without spaces between words (Chinese, Japanese, Thai, ...) and Korean, which
# glues particles to a word ("api.py의"): Python's ``\w`` and ``\b`` count their letters as word
# characters, so "发布2.4.0版本" had no boundary before the version and the version's ``\w*`` tail ate
# the rest of the sentence. In the rules below a word character is ``\w`` without these scripts.
NOSPACE = (
    "\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3005\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f"
)
_W = rf"[^\W{NOSPACE}]"  # a word character of a spaced script
_B = rf"(?:(?<!{_W})(?={_W})|(?<={_W})(?!{_W}))"  # ``\b`` with that word character
# a path (rooted, or with two slashes, or ending in a file extension; not "and/or" or "A/B"):
# keep the last component's stem ("src/components/Navbar.tsx" -> "Navbar"). Folders may be named
# in any script ("/home/ana/项目/x.ipynb"); a relative path starts with a spaced-script character,
# so one glued to Chinese text ("修复tests/test_auth.py里") starts at "tests".
_SEG = r"[\w.@-]+"
_FIRST = rf"(?:{_W}|[.@-])[\w.@-]*"
_PATH = re.compile(
    rf"(?<!{_W})(?<!/)(?:(?:~|\.{{1,2}})?/(?:{_SEG}/)*|{_FIRST}/(?:{_SEG}/)+"
    rf"|{_FIRST}/(?:{_SEG}/)*(?=[\w-]+\.[A-Za-z]{_W}{{0,5}}{_B}))"
    rf"([\w-]+)(?:\.[A-Za-z]{_W}{{0,5}})*(?!{_W})(?!/)"
)
# full-width and ideographic punctuation ends a URL pasted into CJK text ("见 https://x.io/a，然后")
_URL_END = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
# where harvest or mining cut the middle out of a long text (harvest writes the same marker)
CUT_MARKER = "[… {} characters cut …]"
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\[… \d+ characters cut …\]"), " "),
    (re.compile(r"\[REDACTED:[^\]]*\]"), " "),
    (re.compile(rf"{_B}[a-z][a-z0-9+.-]*://[^\s{_URL_END}]+", re.IGNORECASE), " "),
    (re.compile(rf"{_B}(?:{_W}|[.+-])+@(?:{_W}|-)+(\.(?:{_W}|-)+)+{_B}"), " "),
    (
        re.compile(
            rf"{_B}[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}{_B}", re.I
        ),
        " ",
    ),
    (re.compile(rf"{_B}(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{{7,}}{_B}", re.IGNORECASE), " "),
    (_PATH, r" \1 "),
    (re.compile(rf"{_B}v?\d+(?:[.,:]\d+)+{_W}*"), " "),
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
