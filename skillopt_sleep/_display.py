"""User- and model-written text made safe to display: control characters become visible escapes.

A request or an edit can hold bytes that act on whoever reads them rather than being read: an
ESC starts a terminal escape sequence (retitle the window, rewrite the screen), a bidi override
(U+202E and friends, "Trojan Source") shows text in another order than it is stored, a NUL cuts a
line in some viewers, and a lone surrogate cannot be written as UTF-8 at all (a report or a terminal
line holding one fails). Reports and terminal output show each as ``\\u202e`` / ``\\x1b`` instead.
Characters that render as nothing (zero-width spaces, tag characters) are shown too, since text
can hide in them. Tabs and newlines stay; so do the joiner U+200D and U+FE0F (they build emoji). Text the engine writes into a user's
file (a skill's frontmatter) drops them instead (:func:`stripped`), with what YAML forbids too.
"""

from __future__ import annotations

import re

_CONTROLS = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
_FORMAT = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_SURROGATES = range(0xD800, 0xE000)  # alone (half an emoji a UTF-16 count cut): no UTF-8 exists
# render as nothing, so text can hide in them: zero-width characters, the soft hyphen, tag
# characters (an invisible copy of ASCII) and the supplementary variation selectors
_INVISIBLE = [
    0x00AD,
    0x180E,
    0x200B,
    0x200C,
    *range(0x2060, 0x2065),
    *range(0xE0000, 0xE0080),
    *range(0xE0100, 0xE01F0),
]
_VISIBLE = {
    **{c: f"\\x{c:02x}" for c in _CONTROLS},
    **{c: f"\\u{c:04x}" for c in (*_FORMAT, *_SURROGATES) if c <= 0xFFFF},
    **{c: f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}" for c in _INVISIBLE},
    0x0D: "",  # a carriage return alone would let a line overwrite itself on a terminal
}


def displayable(text: str) -> str:
    """``text`` with control and bidi-format characters shown as escapes (see the module doc)."""
    return text.translate(_VISIBLE)


# and what a YAML or JSON reader refuses: lone surrogates, the byte-order mark, the non-characters
_DROPPED = dict.fromkeys([*_CONTROLS, *_FORMAT, *_SURROGATES, *_INVISIBLE, 0xFEFF, 0xFFFE, 0xFFFF])


def stripped(text: str) -> str:
    """``text`` without the characters :func:`displayable` escapes (and those YAML forbids)."""
    return text.translate(_DROPPED)


# in JSON printed raw, what a terminal acts on: the C1 controls (U+009B starts an escape sequence)
# and the bidi formats; JSON escapes the C0 controls itself, and a reader decodes ``\uXXXX`` alike
_JSON_ESCAPED = [c for c in (*_CONTROLS, *_FORMAT) if c >= 0x7F]
_JSON_VISIBLE = {c: f"\\u{c:04x}" for c in _JSON_ESCAPED}
_JSON_VISIBLE_UTF8 = re.compile(b"|".join(re.escape(chr(c).encode()) for c in _JSON_ESCAPED))


def displayable_json(text: str) -> str:
    """JSON text ``text`` with the characters a terminal acts on written as ``\\uXXXX``
    escapes: the same JSON to any reader, inert where it is printed (a model's or a transcript's
    text reaches the terminal through ``--json``)."""
    return text.translate(_JSON_VISIBLE)


def displayable_json_bytes(data: bytes) -> bytes:
    """:func:`displayable_json` for JSON already encoded as UTF-8 (a harvest streams its
    sessions so; a UTF-8 lead byte never occurs inside another character)."""
    return _JSON_VISIBLE_UTF8.sub(lambda m: b"\\u%04x" % ord(m.group().decode("utf-8")), data)
