"""Where the redactor looks and how it replaces: the scan that finds where a rule can start,
and the left-to-right, non-overlapping replacement that never touches a placeholder.

Split from :mod:`skillopt_core.redaction`, which holds the policy (what is a secret) and the
public API; both modules' source is part of the redaction fingerprint.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from skillopt_core import _native
from skillopt_core._secret_rules import (
    ASSIGNMENT,
    ASSIGNMENT_NO_FLAG,
    KEY_CHARS,
    KEY_QUALIFIERS,
    RULES,
    SCAN_GATE,
    WORD_GATE,
    Rule,
    _rarity,
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


# The gate words a text holds decide which anchored rules run. ``w in low`` runs one substring
# search per word; words sharing a substring are searched together instead, by a pattern keyed
# on it, and each other word by a pattern keyed on its rarest character: sre scans for a
# pattern's literal prefix in a tight loop, which on transcripts beats ``in`` for such short
# words. Only when a shared search finds one of its words are they told apart. A search is
# skipped where its key's rarest character is absent (one memchr).
_SHARED_KEYS = ("ke", "cre")  # key, to-ke-n; se-cre-t, cre-dential
_Search = Callable[[str], re.Match[str] | None]


def _keyed_search(key: str, words: list[str]) -> _Search:
    """A search for any of ``words`` (each holds ``key``), matched from its first ``key``."""
    alts = []
    for word in words:
        i = word.index(key) + len(key)
        behind = f"(?<={re.escape(word[:i])})" if i > len(key) else ""
        alts.append(behind + re.escape(word[i:]))
    return re.compile(
        re.escape(key) + (alts[0] if len(alts) == 1 else f"(?:{'|'.join(alts)})")
    ).search


def _word_searches() -> tuple[tuple[str, _Search, tuple[str, ...]], ...]:
    """``(character, search, words)``: one of the words is in a text only if the character is
    and the search matches."""
    left = list(WORD_GATE)
    searches: list[tuple[str, _Search, tuple[str, ...]]] = []
    for key in _SHARED_KEYS:
        group = [w for w in left if key in w]
        if group:
            left = [w for w in left if w not in group]
            searches.append((min(key, key=_rarity), _keyed_search(key, group), tuple(group)))
    for word in left:
        key = word[_rarest(word) :]  # ``zation`` of ``authorization``
        searches.append((min(word, key=_rarity), _keyed_search(key, [word]), (word,)))
    return tuple(searches)


def _rarest(word: str) -> int:
    """Where ``word``'s rarest character but its last is: a search keyed there stops at few
    places of a text, and finds a literal prefix of two characters at least."""
    return min(range(max(1, len(word) - 1)), key=lambda k: (_rarity(word[k]), k))


_WORD_SEARCHES = _word_searches()


def _py_gate_words(low: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    """``gate_words`` in Python: the reference, and the fallback without the C scans."""
    found: list[str] = []
    for char, search, words in _WORD_SEARCHES:
        if skip and skip.issuperset(words):
            continue
        if char in low and search(low):
            if len(words) == 1:
                found.append(words[0])
            else:
                found.extend(w for w in words if w in low)
    return frozenset(found)


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
# gate itself. Three marks, one search each, started at the mark's first byte (a text without
# the mark skips its search): the start characters that end a literal (``_`` of ``ghp_``, ``J``
# of ``eyJ``), found by a lookbehind alone; the rare ones (rarer than ``k``: capitals, ``x`` of
# ``xox``, ``z`` of ``AIza``); and the common ones (``:``, ``g``, ``k``, ``w``). sre makes a match
# attempt at each mark it finds, refused at once by the next byte only if no literal holds that
# byte after one of the mark's characters: kept apart, the common marks are not woken by the hex
# digits of ``SK0``...``SKf`` or the ``a`` of ``AIza`` (``was``, ``get``).
_COMMON_MARK, _END_MARK, _RARE_MARK = 0x01, 0x02, 0x03
_MARKS = (_COMMON_MARK, _END_MARK, _RARE_MARK)
_RARE = _rarity("k")


def _pivot(word: str) -> int:
    """Where ``SCAN_GATE`` starts a match of ``word`` (at its rarest character)."""
    found = SCAN_GATE.search(word)
    if found is None or found.end() != len(word):
        raise ValueError(f"SCAN_GATE does not find {word!r} whole")
    return found.start()


def _trie(items: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Regex alternatives for ``items`` (bytes to match, then the marked literal that must end
    there, ``b""`` for none), as a trie: at a wrong next byte sre drops a branch after one
    comparison, instead of trying every item. Literals that differ only in their last byte
    (``SK0``...``SKf``) share one branch, a character class."""
    alts = sorted({_behind(word) for rest, word in items if not rest})
    children: dict[int, list[tuple[bytes, bytes]]] = {}
    for rest, word in items:
        if rest:
            children.setdefault(rest[0], []).append((rest[1:], word))
    lasts: dict[bytes, list[int]] = {}  # a literal ending at a child's byte, less it -> the bytes
    for b, sub in sorted(children.items()):
        if len(sub) == 1 and not sub[0][0] and sub[0][1]:
            lasts.setdefault(sub[0][1][:-1], []).append(b)
        else:
            alts.append(_byte(b) + _group(_trie(sub)))
    for head, last in sorted(lasts.items()):
        cls = _byte(last[0]) if len(last) == 1 else b"[" + b"".join(map(_byte, last)) + b"]"
        alts.append(cls + b"(?<=" + re.escape(head) + cls + b")")
    return alts


def _behind(word: bytes) -> bytes:
    return b"(?<=" + re.escape(word) + b")" if word else b""


def _group(alts: list[bytes]) -> bytes:
    return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"


def _byte(b: int) -> bytes:
    return re.escape(bytes((b,)))


def _prefilter(kept: list[str]) -> tuple[bytes, tuple[tuple[int, re.Pattern[bytes]], ...]]:
    """The translation table and one search per mark (see above)."""
    pivots = {word: _pivot(word) for word in kept}
    ends = {w[i] for w, i in pivots.items() if i == len(w) - 1}
    marks = {
        w[i]: _END_MARK if w[i] in ends else _RARE_MARK if _rarity(w[i]) < _RARE else _COMMON_MARK
        for w, i in pivots.items()
    }
    table = bytes(
        marks[chr(b)] if chr(b) in marks else ord("?") if b in _MARKS else b for b in range(256)
    )
    ahead: dict[int, list[tuple[bytes, bytes]]] = {mark: [] for mark in _MARKS}
    behind: dict[int, dict[int, list[tuple[bytes, bytes]]]] = {mark: {} for mark in _MARKS}
    for word, i in pivots.items():
        marked = word.encode().translate(table)
        if i + 1 < len(marked):
            ahead[marked[i]].append((marked[i + 1 :], marked))
        else:  # one lookbehind for the literals of a length
            behind[marked[i]].setdefault(len(marked), []).append((marked, b""))
    searches: list[tuple[int, re.Pattern[bytes]]] = []
    for mark in _MARKS:
        if not ahead[mark] and not behind[mark]:
            continue  # no literal: no character gets this mark
        alts = [b"(?<=" + _group(_trie(ws)) + b")" for _, ws in sorted(behind[mark].items())]
        body = _group(alts + _trie(ahead[mark]))
        if not behind[mark]:  # reject a wrong next byte with one set test
            nexts = b"".join(map(_byte, sorted({rest[0] for rest, _ in ahead[mark]})))
            body = b"(?=[" + nexts + b"])" + body
        searches.append((mark, re.compile(_byte(mark) + body)))
    return table, tuple(searches)


def _kept_literals() -> list[str]:
    """The literals ``SCAN_GATE`` searches (as ``_pivot_union`` keeps them): those holding no
    other (``sk-`` finds ``sk-ant-``)."""
    words = {lit for rule in RULES for lit in rule.literals}
    return sorted(w for w in words if not any(o != w and o in w for o in words))


_SCAN_TABLE, _SEARCHES = _prefilter(_kept_literals())
# Candidates checked one by one before the rest of a text is left to the gate's own scan (a run
# of ``ghp_ghp_...`` holds a gate match every few characters: sre finds those faster alone).
_CANDIDATE_BUDGET = 32

_Found = tuple[re.Match[bytes], re.Pattern[bytes]]


def _gate_matches(text: str) -> Iterable[re.Match[str]]:
    """``SCAN_GATE.finditer(text)``, the gate tried only where a prefilter matches: it matches
    nowhere else, so the first gate match from any position is the same."""
    marked = text.encode("ascii", "replace").translate(_SCAN_TABLE)
    found: list[_Found] = []
    for mark, search in _SEARCHES:
        at = marked.find(mark)  # a search's matches start at its mark
        if at >= 0:
            first = search.search(marked, at)
            if first is not None:
                found.append((first, search))
    return _checked(text, marked, found) if found else ()


def _checked(text: str, marked: bytes, found: list[_Found]) -> Iterator[re.Match[str]]:
    """The gate's matches at the prefilters' candidates (``found``: each search with its next
    match), in order, from their first ones."""
    pos = 0
    for _ in range(_CANDIDATE_BUDGET):
        if not found:
            return
        at = min(m.start() for m, _ in found)
        m = SCAN_GATE.match(text, at)
        if m is not None:
            yield m
        pos = at + 1 if m is None else m.end()  # gate matches are never empty
        still: list[_Found] = []
        for f, search in found:
            g = f if f.start() >= pos else search.search(marked, pos)
            if g is not None:
                still.append((g, search))
        found = still
    yield from SCAN_GATE.finditer(text, pos)


def _py_scan_hits(text: str) -> str:
    """The neighbourhoods of every scan-gate hit, NUL-joined ("" when none): ``scan_hits`` in
    Python, the reference and the fallback without the C scans.

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


def _two_rarest(word: str) -> tuple[str, int, int]:
    """``word`` with where its rarest character and its next rarest one are."""
    order = sorted(range(len(word)), key=lambda k: (_rarity(word[k]), k))
    return word, order[0], order[1 % len(word)]


def _configure(module: ModuleType, vector: bool = True) -> None:
    """Give the C scans the rules: the gate's literals with their pivots in the gate's order
    (``_pivot_union`` sorts by pivot character, then literal; the C keeps the given order within
    a character), the margin, and each gate word with the two characters its search looks for.
    ``vector=False``: a character at a time even where SIMD is there (for the tests)."""
    literals = [(word, _pivot(word), _pivot(word)) for word in _kept_literals()]
    module.configure(literals, _HIT_MARGIN, [_two_rarest(w) for w in WORD_GATE], vector)


def compiled_status() -> tuple[_native.Status, ModuleType | None]:
    """Whether the C scans (``_redaction_fast.c``) are usable, and the module when they are (see
    ``_native``)."""
    source = Path(__file__).with_name("_redaction_fast.c")
    return _native.status("skillopt_core._redaction_fast", [source])


def _compiled() -> ModuleType | None:
    """The C scans, configured, or None."""
    module = compiled_status()[1]
    if module is not None:
        _configure(module)
    return module


_FAST = _compiled()
scan_hits: Callable[[str], str] = _py_scan_hits if _FAST is None else _FAST.scan_hits


def gate_words(low: str, skip: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words of ``WORD_GATE`` in ``low`` (a lowered text), less those in ``skip`` (not
    searched, unless a search also finds a word not in it)."""
    if _FAST is None:
        return _py_gate_words(low, skip)
    return _words_of(_FAST.gate_mask(low, _skip_mask(skip) if skip else 0))


@functools.lru_cache(maxsize=64)
def _skip_mask(skip: frozenset[str]) -> int:
    """The C scan's bits (bit i: ``WORD_GATE[i]``) of the words not searched: those of each
    search wholly in ``skip`` (a search finding a word not in it reports all of its words)."""
    mask = 0
    for _, _, words in _WORD_SEARCHES:
        if skip.issuperset(words):
            for word in words:
                mask |= 1 << WORD_GATE.index(word)
    return mask


@functools.cache
def _words_of(mask: int) -> frozenset[str]:
    return frozenset(w for i, w in enumerate(WORD_GATE) if mask >> i & 1)


def anchor_positions(low: str, anchors: tuple[str, ...]) -> list[int]:
    found: set[int] = set()
    for anchor in anchors:
        i = low.find(anchor)
        while i != -1:
            found.add(i)
            i = low.find(anchor, i + 1)
    return sorted(found)


# A ``KEY = value`` match reaches its separator soon after its anchor: past the rest of the key
# word (``passw`` + ``ord``) and a quote, at most ``_SEP_REACH`` characters on, the separator's
# first character, `` ``, ``\t``, ``:`` or ``=``; where no key character precedes the key word
# (``assignment_at``: no ``--flag``), a ``:`` or ``=`` after spaces. An anchor without that ahead
# (``test_token.py``, ``the token expired``) cannot start a match, so it is not tried. Lowering
# moves none of those characters, nor turns a key character into another one, so ``low`` tells.
_SEP_REACH = 4  # the longest key word's tail beyond its anchor (``ord`` of ``password``), a quote
_KEY_CLASS = "[" + "".join(map(re.escape, sorted(KEY_CHARS))) + "]"


def _overlaps_itself(word: str) -> bool:
    return any(word[:k] == word[-k:] for k in range(1, len(word)))


@functools.cache
def _separated(anchor: str) -> tuple[re.Pattern[str], int]:
    """A search for the anchor where a separator can follow, and where its matches start in the
    anchor: at its rarest character but the last, the rest behind (sre's fast loop stops at each
    ``t`` of a text for ``token``, at each ``k`` for ``ken``). The matches of an anchor that
    cannot overlap itself never overlap either, so each of its occurrences is found."""
    i = _rarest(anchor)
    word, tail = re.escape(anchor), rf"[^ \t:=]{{0,{_SEP_REACH}}}"
    ahead = rf"(?:(?<={_KEY_CLASS}{word})(?={tail}[ \t:=])|(?={tail}[ \t]*[:=]))"
    if _overlaps_itself(anchor):
        return re.compile(f"(?={word}{ahead})"), 0
    behind = f"(?<={word})" if i else ""
    return re.compile(f"{re.escape(anchor[i:])}{behind}{ahead}"), i


def assignment_positions(low: str, anchors: tuple[str, ...]) -> list[int]:
    """``anchor_positions`` less the anchors that no separator follows within reach."""
    found: set[int] = set()
    for anchor in anchors:
        search, at = _separated(anchor)
        found.update(m.start() - at for m in search.finditer(low))
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
