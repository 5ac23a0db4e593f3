"""Lines that hold characters a reader does not see: the edit screen's invisible-characters rule
(:mod:`skillopt_core.skill.screen`).

A format or control character, a private-use one, a variation selector, a tag or a blank letter
shows nothing (or reorders what is shown) yet a model reads it: it can hide an instruction or
make a word read other than it looks. Two joiners are let through where their neighbours make
them writing, not hiding: U+200D and U+FE0F inside an emoji sequence (after a pictograph or
U+FE0F), and U+200C / U+200D after a letter or mark of a script other than Latin (Persian writes
ZWNJ inside words, "می‌خواهم"; Indic scripts choose a conjunct or a half form, "क्‍ष"), one at a
time: after a Latin letter or in a run they hide or encode text. Each distinct neighbour is
judged once for the whole text, and only the lines where an unexcused character may be are read
one by one.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator

from skillopt_core.skill._screen_read import invisible, line_starts

_JOINERS = "\u200c\u200d\ufe0f"


def invisible_lines(text: str) -> Iterator[tuple[int, list[str]]]:
    """``(line number, ["U+200B", ...])`` for each line of ``text`` (as written, not as read)
    that holds an invisible character no neighbour excuses. A line's trailing CRs end it."""
    odd = {c for c in set(text) if invisible(c)}
    if not odd:
        return
    unexcused = {j: _unexcused(text, j) for j in odd & set(_JOINERS)}
    plain = _chars(odd - {"\r", *_JOINERS})
    suspect = re.compile(
        "|".join(
            [
                *([f"[{plain}]"] if plain else []),
                *([r"\r(?=[^\r\n])"] if "\r" in odd else []),
                *(searches[0].pattern for searches in unexcused.values()),
            ]
        )
    )
    starts = line_starts(text)
    m = suspect.search(text)
    while m is not None:
        number = bisect.bisect_right(starts, m.start())
        end = starts[number] - 1 if number < len(starts) else len(text)
        line = text[starts[number - 1] : end].rstrip("\r")
        found = sorted(
            f"U+{ord(c):04X}"
            for c in set(line)
            if invisible(c) and all(rx.search(line) for rx in unexcused.get(c, ()))
        )
        if found:
            yield number, found
        m = suspect.search(text, end)


def _unexcused(text: str, joiner: str) -> tuple[re.Pattern[str], ...]:
    """Searches for an occurrence of ``joiner`` that an excuse it may have does not cover (one
    search an excuse: an emoji sequence, spelling). A line holds it unexcused when every search
    finds one there; the first is a necessary condition."""
    escaped = re.escape(joiner)
    before = set(re.findall(f"(.)(?={escaped})", text, re.S))
    searches = []
    if joiner in "\u200d\ufe0f":
        emoji = {b for b in before if unicodedata.category(b) in ("So", "Sk") or b == "\ufe0f"}
        searches.append(_not_after(escaped, emoji))
    if joiner in "\u200c\u200d":
        letters = {b for b in before if _other_script_letter(b)}
        after = {a for a in re.findall(f"(?<={escaped})(.)", text, re.S) if invisible(a)}
        followed = f"|{escaped}(?=[{_chars(after)}])" if after else ""
        searches.append(_not_after(escaped, letters) + followed)
    return tuple(re.compile(s) for s in searches)


def _not_after(escaped: str, allowed: set[str]) -> str:
    return f"(?<![{_chars(allowed)}]){escaped}" if allowed else escaped


def _chars(chars: set[str]) -> str:
    return "".join(re.escape(c) for c in sorted(chars))


def _other_script_letter(char: str) -> bool:
    return (
        not char.isascii()
        and unicodedata.category(char)[0] in "LM"
        and not unicodedata.name(char, "").startswith("LATIN")
    )
