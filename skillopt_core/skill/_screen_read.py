"""How the edit screen reads a text (:mod:`skillopt_core.skill.screen`): as the agent would
understand it, once per text.

A :class:`Reading` holds the text with invisible characters dropped, compatibility forms folded
(full-width letters) and case ignored (:func:`normal`), and the offset where each line starts.
Its ``joined`` copy makes one *logical* line of a shell line continued onto the next (a trailing
``\\``, ``|``, ``||`` or ``&&``): ``curl ... \\`` with ``| sh`` below it is one pipe. ``joined``
has the length of ``text`` (a continuation's newline and backslash become spaces), so an offset
names the same line in both.

Rules scan a whole reading with patterns that stay on one line (:data:`W`, never ``\\s``) and map
what they find to lines by offset. No rule loops over every line in Python, so a text of many
short lines costs about what one long line does, and every pattern is linear in its input.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

W = r"[^\S\n]"
"""White space within a line: what the screen's patterns use instead of ``\\s``."""


def lead(*words: str, before: str = r"[\w.-]", then: str = "") -> str:
    """Alternatives that each open with one of ``words``, written literally, then check that
    no ``before`` character stands in front of it (a look-behind after the word). ``re`` scans
    quickly to where such a pattern can start; one that opens with a look-behind or ``\\b`` is
    tried at every offset of the text. ``then`` follows each word."""
    return "|".join(f"{re.escape(w)}(?<!{before}{re.escape(w)}){then}" for w in words)


_SHELLS = (
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "perl", "ruby", "node",
    "php", "deno", "bun", "iex"
)  # fmt: skip
_OTHERS = ("invoke-expression", "pwsh", "powershell")
INTERPRETERS = rf"(?:{'|'.join([*_SHELLS, *_OTHERS])}|python[0-9.]*)"
"""The programs that run what they are given as code."""


def interpreters(before: str) -> str:
    """:data:`INTERPRETERS` as :func:`lead` alternatives."""
    return (
        f"{lead(*_SHELLS, *_OTHERS, before=before)}|{lead('python', before=before, then='[0-9.]*')}"
    )


FETCH_WORDS = (
    "curl", "wget", "fetch", "aria2c", "iwr", "irm", "invoke-webrequest", "invoke-restmethod",
    "certutil", "bitsadmin", "start-bitstransfer"
)  # fmt: skip
FETCHES = lead(*FETCH_WORDS, then=r"\b")
"""A command that downloads (:func:`lead` alternatives)."""


@functools.lru_cache(maxsize=4096)
def invisible(char: str) -> bool:
    """A character that shows nothing (or reorders what is shown) yet is read by a model."""
    code = ord(char)
    category = unicodedata.category(char)
    if char in "\t\n":
        return False
    return (
        category in ("Cf", "Cc", "Zl", "Zp", "Co", "Cs")
        or 0xFE00 <= code <= 0xFE0F  # variation selectors: smuggle bytes after any character
        or 0xE0100 <= code <= 0xE01EF
        or code in (0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800)  # letters that render as blanks
    )


_ASCII_INVISIBLE = dict.fromkeys([*range(0x09), *range(0x0B, 0x20), 0x7F])


def normal(text: str) -> str:
    """``text`` as read for meaning: no invisible characters, NFKC, lower case. Line by line
    and whole give the same lines: no character folds into or out of a newline."""
    if text.isascii():
        return text.translate(_ASCII_INVISIBLE).lower()
    odd = dict.fromkeys(ord(c) for c in set(text) if invisible(c))
    kept = text.translate(odd) if odd else text
    return unicodedata.normalize("NFKC", kept).casefold()


# A line goes on below: a backslash, or a pipe or an and/or list left open, before the end of
# the line (inline code may close after it: "`curl ... \`"). A Markdown table row (a line that
# starts with "|") ends with "|" and goes on nowhere. Both substitutions keep the length.
_SLASH_GOES_ON_RE = re.compile(rf"\\((?:{W}|`)*)\n")
_PIPE_GOES_ON_RE = re.compile(rf"^((?!{W}*\|)[^\n]*(?:\||&&)(?:{W}|`)*)\n", re.M)


@dataclass(frozen=True)
class Reading:
    """A text as read (see the module's docstring); offsets index ``text`` and ``joined``."""

    text: str
    joined: str
    starts: tuple[int, ...]
    """Offset of each line's first character in ``text`` (line 1 first)."""
    logical_starts: tuple[int, ...]
    """Offset of each logical line's first character in ``joined``."""

    def line(self, pos: int) -> int:
        """The 1-based number of the line holding offset ``pos``."""
        return bisect.bisect_right(self.starts, pos)

    def logical(self, pos: int) -> int:
        """The 0-based index of the logical line holding offset ``pos``."""
        return bisect.bisect_right(self.logical_starts, pos) - 1

    def logical_line(self, index: int) -> tuple[int, str]:
        """(offset, text) of logical line ``index``."""
        start = self.logical_starts[index]
        nxt = self.logical_starts[index + 1] - 1 if index + 1 < len(self.logical_starts) else None
        return start, self.joined[start:nxt]

    def next_line(self, pos: int) -> int:
        """The offset where the line after the one holding ``pos`` starts (or the end)."""
        number = self.line(pos)
        return self.starts[number] if number < len(self.starts) else len(self.text)

    def next_logical(self, pos: int) -> int:
        """The offset where the logical line after the one holding ``pos`` starts (or the end)."""
        index = self.logical(pos) + 1
        return self.logical_starts[index] if index < len(self.logical_starts) else len(self.text)


def line_starts(text: str) -> tuple[int, ...]:
    """The offset where each line of ``text`` starts."""
    return (0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1]))


def _join_continued(text: str) -> str:
    if "\\" in text:
        text = _SLASH_GOES_ON_RE.sub(r" \1 ", text)
    if "|" in text or "&&" in text:
        text = _PIPE_GOES_ON_RE.sub(r"\1 ", text)
    return text


@functools.lru_cache(maxsize=8)
def read(raw: str) -> Reading:
    """The reading of ``raw`` (kept for the last few texts: every rule reads the same one)."""
    text = normal(raw)
    starts = line_starts(text)
    joined = _join_continued(text)
    return Reading(text, joined, starts, line_starts(joined))


def matching_lines(reading: Reading, rx: re.Pattern[str]) -> Iterator[int]:
    """The numbers of the lines where ``rx`` (a pattern that stays on one line) matches, in
    order and each once: one search per such line, none per other line."""
    m = rx.search(reading.text)
    while m is not None:
        yield reading.line(m.start())
        m = rx.search(reading.text, reading.next_line(m.start()))
