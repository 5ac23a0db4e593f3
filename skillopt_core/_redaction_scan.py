"""Where the redactor looks and how it replaces: the scan that finds where a rule can start,
and the left-to-right, non-overlapping replacement that never touches a placeholder.

Split from :mod:`skillopt_core.redaction`, which holds the policy (what is a secret) and the
public API; both modules' source is part of the redaction fingerprint.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator
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

# SCAN_GATE, the one search for every rule literal, starts a match at the literal's rarest
# character, with a lookbehind for the characters before it. sre tests every character of the
# text against that set of start characters, ~15x slower than its loop for a single literal
# first character; so the gate is only tried where a cheaper bytes search says it may match.
#
# The prefilter: the text's ASCII bytes (one per character: non-ASCII becomes ``?``) with every
# start character turned into a mark byte, and each literal, marked the same way, searched from
# its mark. Where the gate matches, the marked literal occurs with its mark at the same place;
# the converse may fail (another marked character there), so each candidate is checked by the
# gate itself. Two marks: one for the start characters that end a literal (``_`` of ``ghp_``,
# ``J`` of ``eyJ``), found by a lookbehind alone, so that the common marks of the other search
# (``:``, ``g``) are rejected by the next byte without trying those lookbehinds.
_MARK, _END_MARK = 0x01, 0x02


def _pivot(word: str) -> int:
    """Where ``SCAN_GATE`` starts a match of ``word`` (at its rarest character)."""
    found = SCAN_GATE.search(word)
    if found is None or found.end() != len(word):
        raise ValueError(f"SCAN_GATE does not find {word!r} whole")
    return found.start()


def _trie(items: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Regex alternatives for ``items`` (bytes to match, then a tail pattern), as a trie: at a
    wrong next byte sre drops a branch after one comparison, instead of trying every item."""
    alts = sorted({tail for rest, tail in items if not rest})
    children: dict[int, list[tuple[bytes, bytes]]] = {}
    for rest, tail in items:
        if rest:
            children.setdefault(rest[0], []).append((rest[1:], tail))
    return alts + [_byte(b) + _group(_trie(sub)) for b, sub in sorted(children.items())]


def _group(alts: list[bytes]) -> bytes:
    return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"


def _byte(b: int) -> bytes:
    return re.escape(bytes((b,)))


def _prefilter(kept: list[str]) -> tuple[bytes, tuple[re.Pattern[bytes], re.Pattern[bytes]]]:
    """The translation table and one search per mark (see above)."""
    ends = {w[_pivot(w)] for w in kept if _pivot(w) == len(w) - 1}
    starts = {w[_pivot(w)] for w in kept}
    table = bytes(
        _END_MARK if chr(b) in ends
        else _MARK if chr(b) in starts
        else ord("?") if b in (_MARK, _END_MARK)
        else b
        for b in range(256)
    )  # fmt: skip
    ahead: dict[int, list[tuple[bytes, bytes]]] = {_MARK: [], _END_MARK: []}
    behind: dict[int, dict[int, list[tuple[bytes, bytes]]]] = {_MARK: {}, _END_MARK: {}}
    for word in kept:
        marked, i = word.encode().translate(table), _pivot(word)
        if i + 1 < len(marked):
            ahead[marked[i]].append((marked[i + 1 :], b"(?<=" + re.escape(marked) + b")"))
        else:  # one lookbehind for the literals of a length
            behind[marked[i]].setdefault(len(marked), []).append((marked, b""))
    searches: list[re.Pattern[bytes]] = []
    for mark in (_MARK, _END_MARK):
        alts = [b"(?<=" + _group(_trie(ws)) + b")" for _, ws in sorted(behind[mark].items())]
        alts += _trie(ahead[mark])
        body = _group(alts) if alts else b"(?!)"  # no literal: no character gets this mark
        if not behind[mark] and ahead[mark]:  # reject a wrong next byte with one set test
            nexts = b"".join(map(_byte, sorted({rest[0] for rest, _ in ahead[mark]})))
            body = b"(?=[" + nexts + b"])" + body
        searches.append(re.compile(_byte(mark) + body))
    return table, (searches[0], searches[1])


def _kept_literals() -> list[str]:
    """The literals ``SCAN_GATE`` searches (as ``_pivot_union`` keeps them): those holding no
    other (``sk-`` finds ``sk-ant-``)."""
    words = {lit for rule in RULES for lit in rule.literals}
    return sorted(w for w in words if not any(o != w and o in w for o in words))


_SCAN_TABLE, (_SEARCH, _END_SEARCH) = _prefilter(_kept_literals())
# Candidates checked one by one before the rest of a text is left to the gate's own scan (a run
# of ``ghp_ghp_...`` holds a gate match every few characters: sre finds those faster alone).
_CANDIDATE_BUDGET = 32


def _gate_matches(text: str) -> Iterable[re.Match[str]]:
    """``SCAN_GATE.finditer(text)``, the gate tried only where a prefilter matches: it matches
    nowhere else, so the first gate match from any position is the same."""
    marked = text.encode("ascii", "replace").translate(_SCAN_TABLE)
    ahead, behind = _SEARCH.search(marked), _END_SEARCH.search(marked)
    if ahead is None and behind is None:
        return ()
    return _checked(text, marked, ahead, behind)


def _checked(
    text: str, marked: bytes, ahead: re.Match[bytes] | None, behind: re.Match[bytes] | None
) -> Iterator[re.Match[str]]:
    """The gate's matches at the prefilters' candidates, in order, from their first ones."""
    pos = 0
    for _ in range(_CANDIDATE_BUDGET):
        if ahead is None:
            if behind is None:
                return
            at = behind.start()
        else:
            at = ahead.start() if behind is None else min(ahead.start(), behind.start())
        m = SCAN_GATE.match(text, at)
        if m is not None:
            yield m
        pos = at + 1 if m is None else m.end()  # gate matches are never empty
        if ahead is not None and ahead.start() < pos:
            ahead = _SEARCH.search(marked, pos)
        if behind is not None and behind.start() < pos:
            behind = _END_SEARCH.search(marked, pos)
    yield from SCAN_GATE.finditer(text, pos)


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
    for m in _gate_matches(text):
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
    """Replace each match by ``repl(m)``; unchanged text is returned as is, not rebuilt."""
    out: list[str] = []
    last = 0
    for m in matches:
        start, end = m.span()
        replaced = repl(m)
        if len(replaced) == end - start and replaced == m.group():
            continue
        out.append(text[last:start])
        out.append(replaced)
        last = end
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
