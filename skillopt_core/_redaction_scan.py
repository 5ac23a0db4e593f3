"""Where the redactor looks and how it replaces: the scan that finds where a rule can start,
and the left-to-right, non-overlapping replacement that never touches a placeholder.

Split from :mod:`skillopt_core.redaction`, which holds the policy (what is a secret) and the
public API; both modules' source is part of the redaction fingerprint.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from typing import Any

from skillopt_core._secret_rules import (
    ASSIGNMENT,
    ASSIGNMENT_NO_FLAG,
    KEY_CHARS,
    KEY_QUALIFIERS,
    RULES,
    SCAN_GATE,
    Rule,
)

PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
PLACEHOLDER_MARK = "[REDACTED:"

Sub = Callable[[re.Match[str]], str]


def sub_outside_placeholders(rx: re.Pattern[str], repl: Sub, text: str) -> str:
    if PLACEHOLDER_MARK not in text:
        return rx.sub(repl, text)
    out: list[str] = []
    pos = 0
    for m in PLACEHOLDER_RE.finditer(text):
        out.append(rx.sub(repl, text[pos : m.start()]))
        out.append(m.group())
        pos = m.end()
    out.append(rx.sub(repl, text[pos:]))
    return "".join(out)


def ascii_lower(text: str) -> str:
    """``text.lower()`` with indices preserved (a few non-ASCII letters lower to two chars)."""
    low = text.lower()
    return low if len(low) == len(text) else text.encode("ascii", "replace").decode().lower()


def placeholder_spans(text: str) -> list[tuple[int, int]]:
    if PLACEHOLDER_MARK not in text:
        return []
    return [m.span() for m in PLACEHOLDER_RE.finditer(text)]


def _anchor_gates(rule: Rule) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each anchor of ``rule`` with the gate words it contains (an anchor holding none is
    always searched)."""
    return tuple((a, frozenset(g for g in rule.gate if g in a)) for a in rule.anchors)


_ANCHOR_GATES = {id(rule): _anchor_gates(rule) for rule in (*RULES, ASSIGNMENT) if rule.anchors}


def live_anchors(rule: Rule, words: frozenset[str]) -> tuple[str, ...]:
    """The anchors of ``rule`` that can occur in a text whose gate words are ``words``: an
    anchor contains its gate word, so without that word it is not there (``passw`` needs
    ``pass``), and searching for it would only scan the whole text for nothing."""
    return tuple(
        a for a, gates in _ANCHOR_GATES[id(rule)] if not gates or not words.isdisjoint(gates)
    )


_HIT_MARGIN = max(len(lit) for rule in RULES for lit in rule.literals)


def scan_hits(text: str) -> str:
    """The neighbourhoods of every scan-gate hit, NUL-joined ("" when none).

    A literal occurs in ``text`` exactly when it occurs in these: each occurrence is either a
    hit or lies inside an earlier hit's span, and a neighbourhood reaches a literal's length
    around its hit (no literal holds a NUL, so none is made up across two). So one scan of the
    text answers every rule's literal test, instead of one scan per literal.
    Overlapping neighbourhoods are merged, so the result is never much longer than the text
    (a run of ``sk-sk-sk-...`` would otherwise repeat each character ~18 times).
    """
    margin = _HIT_MARGIN
    parts: list[str] = []
    lo = hi = -1
    for m in SCAN_GATE.finditer(text):
        start = m.start() - margin
        if hi >= 0 and start <= hi:
            hi = m.end() + margin
            continue
        if hi >= 0:
            parts.append(text[lo:hi])
        lo, hi = max(0, start), m.end() + margin
    if hi >= 0:
        parts.append(text[lo:hi])
    return "\x00".join(parts)


def anchor_positions(low: str, anchors: tuple[str, ...]) -> list[int]:
    found: set[int] = set()
    for anchor in anchors:
        i = low.find(anchor)
        while i != -1:
            found.add(i)
            i = low.find(anchor, i + 1)
    return sorted(found)


def apply_matches(text: str, matches: Iterable[re.Match[str]], repl: Sub) -> str:
    out: list[str] = []
    last = 0
    for m in matches:
        out.append(text[last : m.start()])
        out.append(repl(m))
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def apply_rule(
    rule: Rule,
    text: str,
    matches: Iterable[Any],
    repl: Sub,
    match_at: Callable[[str, int], re.Match[str] | None] | None = None,
) -> str:
    """Replace, left to right and without overlap, the rule's matches (``None`` = no match).

    A match its ``repl`` declines (returns unchanged) does not hide later matches inside it:
    ``the token API_KEY=...`` is prose up to the real assignment. Unchanged text is returned as is.
    With ``match_at``, ``matches`` are sorted positions, matched there only when not inside a
    match already replaced: a long value holding many anchors (``password=password=...``) is
    then scanned once, not once per anchor.
    """
    spans = placeholder_spans(text)
    out: list[str] = []
    last = at = 0  # spans[:at] end before every match still to come (matches come in order)
    for item in matches:
        if match_at is None:
            m = item
        elif item < last:
            continue
        else:
            m = match_at(text, item)
        if m is None or m.start() < last:
            continue
        start, end = m.span()
        if start and start != last and text[start - 1] in rule.left_exclude:
            continue
        while at < len(spans) and spans[at][1] <= start:
            at += 1
        if at < len(spans) and spans[at][0] < end:
            continue
        replaced = repl(m)
        if replaced == m.group():
            continue
        out.append(text[last:start])
        out.append(replaced)
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def assignment_at(text: str, pos: int) -> re.Match[str] | None:
    """The ``KEY = value`` match at an anchor; the bare-space separator only after a key
    character (it only counts after a ``--flag`` key)."""
    rx = ASSIGNMENT.regex if pos and text[pos - 1] in KEY_CHARS else ASSIGNMENT_NO_FLAG
    return rx.match(text, pos)


def may_assign(text: str, pos: int) -> bool:
    """False where an assignment at the anchor ``key`` at ``pos`` fails or is declined whatever
    its value: ``key`` goes on (``keyboard``), or is not preceded by a qualifier (``api_key``;
    see ``_assignment_repl``). Told before the value is scanned: ``key=key=key=...`` would
    otherwise scan the rest of the run at every anchor."""
    if text[pos + 3 : pos + 4] in _WORD_CHARS:
        return False
    end = pos
    while end > 0 and text[end - 1] in "_-.":
        end -= 1
    return text[max(0, end - _QUALIFIER_CHARS) : end].lower().endswith(KEY_QUALIFIERS)


_QUALIFIER_CHARS = max(map(len, KEY_QUALIFIERS))
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")
