"""How a replayed answer and a check's value are compared: the same text however it is typed.

A check comes from what a developer typed (or an optimizer wrote) and is compared with what a
model wrote. The two rarely agree on form: NFC vs NFD, full-width letters and ligatures, smart vs
straight quotes, ``ß`` vs ``SS``, the Turkish dotted and dotless I, CRLF, runs of spaces, and
invisible format characters (a zero-width joiner inside ``print`` must not hide it from a
``not_contains``). :func:`fold` maps all of those to one form; it is linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_QUOTES = {
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\u02bc\uff07"), "'"),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\uff02"), '"'),
    **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-"),
    ord("\u0131"): "i",  # dotless i: Turkish "ı" and "I" fold to the same i
}
_WHITESPACE = re.compile(r"\s+")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_FENCES = ("```", "~~~")


def _no_format_chars(text: str) -> str:
    """``text`` without invisible format characters (zero-width joiners and spaces, soft
    hyphens, byte-order marks, bidi controls): category Cf."""
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def as_text(answer: Any) -> str:
    """A reply as text: bytes are read as UTF-8, and anything else that is not text (None from a
    backend that said nothing, a parsed JSON value from a plugin) is no answer at all."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, (bytes, bytearray)):
        return bytes(answer).decode("utf-8", errors="replace")
    return ""


def fold(text: str) -> str:
    """``text`` in the form contains-style checks compare: compatibility-normalised, case-folded,
    quotes and dashes straightened, format characters dropped, whitespace runs made one space."""
    text = unicodedata.normalize("NFKC", _no_format_chars(text))
    text = unicodedata.normalize("NFKC", text.casefold()).replace("i\u0307", "i")
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def for_pattern(text: str) -> str:
    """``text`` as a regex check reads it: NFC, LF line ends, no invisible format characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", _no_format_chars(text))


def _unfenced_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks; a reply that is one fenced block (a
    model wrapping its whole answer in ```markdown) is read as its content."""
    lines = for_pattern(text).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    wrapped = len(lines) >= 2 and _FENCE.match(lines[0]) and lines[-1].strip()[:3] in _FENCES
    if wrapped and not any(_FENCE.match(line) for line in lines[1:-1]):
        lines = lines[1:-1]
    kept: list[str] = []
    fence = ""
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            kept.append(line)
    return kept


def heading_titles(text: str) -> list[str]:
    """Folded titles of the Markdown headings (``# Title``) and bold lead lines (``**Title**``)
    of ``text``, outside code blocks. Line by line, with no backtracking regex."""
    titles: list[str] = []
    for line in _unfenced_lines(text):
        body = line.lstrip(" ")
        if len(line) - len(body) > 3:
            continue
        if body.startswith("#"):
            marks = len(body) - len(body.lstrip("#"))
            rest = body[marks:]
            if marks > 6 or not rest[:1].isspace():
                continue
            title = rest.strip().rstrip("#").strip()
        elif body.startswith("**"):
            title = body[2:].strip().rstrip(":").rstrip().rstrip("*")
        else:
            continue
        title = fold(title.rstrip().rstrip(":").rstrip("*"))
        if title:
            titles.append(title)
    return titles
