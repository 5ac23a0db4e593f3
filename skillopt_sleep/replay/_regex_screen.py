"""The screen of :mod:`.patterns`: which regular expressions a check may hold.

A pattern that does not compile, uses a backreference, or repeats a body whose passes could
split one text more than one way (``(a+)+``, ``(a|aa)+``, ``(,\\w*\\d*)+``) is refused on every
answer alike; see :func:`regex_problem`.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from typing import Any

try:  # the parser behind ``re``: re._parser from Python 3.11, sre_parse before
    _sre: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.10
    _sre = importlib.import_module("sre_parse")
_engine: Any = importlib.import_module("_sre")  # the matcher itself: which characters have case

_REPEATS = {_sre.MAX_REPEAT, _sre.MIN_REPEAT}
_BACKREFS = {_sre.GROUPREF, getattr(_sre, "GROUPREF_EXISTS", _sre.GROUPREF)}
_ONE_CHAR = {_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN}
_ZERO_WIDTH = {_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT}
_NESTED = "it nests a repeat inside a repeat"
_ALIKE = "it repeats alternatives that can begin alike"
_OPAQUE = "it repeats a group the screen cannot see through"
_FEW = 256
_FEW_PASSES = 16  # a repeat of at most this many passes may be weighed by its ways to match
_FEW_WAYS = 100_000  # ... and is admitted when they are at most this many
"""A set of at most this many characters is compared character by character."""
_Char = tuple[Any, Any, int]  # one single-character matcher: its node and the flags in force


def _subpatterns(value: Any) -> list[Any]:
    """The parsed sub-patterns held anywhere in one node's argument."""
    if isinstance(value, _sre.SubPattern):
        return [value]
    if isinstance(value, (tuple, list)):
        return [s for item in value for s in _subpatterns(item)]
    return []


_CLASSES = {
    _sre.CATEGORY_DIGIT: r"\d",
    _sre.CATEGORY_NOT_DIGIT: r"\D",
    _sre.CATEGORY_SPACE: r"\s",
    _sre.CATEGORY_NOT_SPACE: r"\S",
    _sre.CATEGORY_WORD: r"\w",
    _sre.CATEGORY_NOT_WORD: r"\W",
}
_APART = {  # classes no character belongs to both of (\d is within \w), under the same flags
    frozenset(pair)
    for pair in (
        (_sre.CATEGORY_DIGIT, _sre.CATEGORY_NOT_DIGIT),
        (_sre.CATEGORY_SPACE, _sre.CATEGORY_NOT_SPACE),
        (_sre.CATEGORY_WORD, _sre.CATEGORY_NOT_WORD),
        (_sre.CATEGORY_DIGIT, _sre.CATEGORY_SPACE),
        (_sre.CATEGORY_WORD, _sre.CATEGORY_SPACE),
        (_sre.CATEGORY_DIGIT, _sre.CATEGORY_NOT_WORD),
    )
}


class _Ambiguous(Exception):
    """A repeat's passes could split one text more than one way; the message says how."""


@functools.lru_cache(maxsize=1)
def _cased() -> str:
    """Every character that has a case (about 3,000), found once, on the first case-blind
    pattern."""
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if _engine.unicode_iscased(c))


@functools.lru_cache(maxsize=4096)
def _case_blind(char: str) -> frozenset[str]:
    """``char`` and every character a case-blind match can take for it, as ``re`` itself
    decides, closed under that (``k``: ``K`` and the Kelvin sign; ``s``: ``S`` and the long s)."""
    found, todo = {char}, [char]
    while todo:
        near = set(re.findall(re.escape(todo.pop()), _cased(), re.IGNORECASE)) - found
        found |= near
        todo.extend(near)
    return frozenset(found)


def _variants(char: str, flags: int) -> frozenset[str]:
    return _case_blind(char) if flags & re.IGNORECASE else frozenset(char)


def _may_match(matcher: _Char, char: str) -> bool:
    """Whether the one-character ``matcher`` can match ``char``; True where unsure (unknown
    nodes, a negated set under case-blindness): the screen errs towards refusing."""
    op, av, flags = matcher
    variants = _variants(char, flags)
    exact = len(variants) == 1  # case-blind matching of a caseless character is exact
    if op is _sre.LITERAL:
        return chr(av) in variants
    if op is _sre.NOT_LITERAL:
        return chr(av) != char or not exact
    if op is _sre.ANY:
        return char != "\n" or bool(flags & re.DOTALL)
    if op is not _sre.IN:
        return True
    negated = bool(av) and av[0][0] is _sre.NEGATE
    if negated and not exact:
        return True
    for kind, value in av[negated:]:
        if kind is _sre.LITERAL:
            hit = chr(value) in variants
        elif kind is _sre.RANGE:
            hit = any(value[0] <= ord(c) <= value[1] for c in variants)
        elif kind is _sre.CATEGORY and value in _CLASSES:
            hit = any(re.fullmatch(_CLASSES[value], c, flags & re.ASCII) for c in variants)
        else:
            return True
        if hit:
            return not negated
    return negated


def _chars(matcher: _Char) -> frozenset[str] | None:
    """Every character ``matcher`` can match, where they are few (a literal, a small set)."""
    op, av, flags = matcher
    if op is _sre.LITERAL:
        items = [(op, av)]
    elif op is _sre.IN and av and av[0][0] is not _sre.NEGATE:
        items = av
    else:
        return None
    codes: list[int] = []
    for kind, value in items:
        if kind is _sre.LITERAL:
            codes.append(value)
        elif kind is _sre.RANGE and value[1] - value[0] < _FEW:
            codes.extend(range(value[0], value[1] + 1))
        else:
            return None
    if len(codes) > _FEW:
        return None
    return frozenset(v for code in codes for v in _variants(chr(code), flags))


def _parts(matcher: _Char) -> list[_Char]:
    """A set split into its members (``[\\w.-]``: ``\\w``, ``.``, ``-``), each a matcher."""
    op, av, flags = matcher
    if op is _sre.IN and len(av) > 1 and av[0][0] is not _sre.NEGATE:
        return [(op, [item], flags) for item in av]
    return [matcher]


def _overlap(one: _Char, other: _Char) -> bool:
    """Whether two one-character matchers can match a same character; True where unsure."""
    for a in _parts(one):
        for b in _parts(other):
            chars = _chars(a)
            if chars is not None:
                if any(_may_match(b, c) for c in chars):
                    return True
                continue
            chars = _chars(b)
            if chars is not None:
                if any(_may_match(a, c) for c in chars):
                    return True
                continue
            classes = frozenset(m[1][0][1] for m in (a, b) if m[0] is _sre.IN and len(m[1]) == 1)
            same_flags = not (a[2] ^ b[2]) & (re.ASCII | re.IGNORECASE)
            if not (same_flags and classes in _APART):
                return True
    return False


def _one_char(body: Any, flags: int) -> _Char | None:
    """The repeat body's single-character matcher (through plain groups), or None."""
    while len(body) == 1 and body[0][0] is _sre.SUBPATTERN:
        flags |= body[0][1][1]
        body = body[0][1][3]
    if len(body) == 1 and body[0][0] in _ONE_CHAR:
        return (body[0][0], body[0][1], flags)
    return None


def _first(seq: Any, flags: int) -> tuple[list[_Char], bool]:
    """The matchers a match of ``seq`` can open with, and whether it can match nothing."""
    opening: list[_Char] = []
    for op, av in seq:
        if op in _ONE_CHAR:
            return [*opening, (op, av, flags)], False
        if op in _ZERO_WIDTH:
            continue
        if op is _sre.SUBPATTERN:
            chars, empty = _first(av[3], flags | av[1])
        elif op in _REPEATS:
            char = _one_char(av[2], flags)
            if char is None:
                raise _Ambiguous(_NESTED)
            chars, empty = [char], av[0] == 0
        elif op is _sre.BRANCH:
            branches = [_first(branch, flags) for branch in av[1]]
            chars = [c for found, _ in branches for c in found]
            empty = any(e for _, e in branches)
        else:
            raise _Ambiguous(_OPAQUE)
        opening.extend(chars)
        if not empty:
            return opening, False
    return opening, True


def _settled(seq: Any, follow: list[_Char], flags: int) -> None:
    """Raise unless the next character settles every choice in ``seq``: a variable repeat (of
    one character, nothing longer) cannot match anything that may come after it, and no two
    alternatives can open alike or match nothing. ``follow``: what may come after ``seq``."""
    for i, (op, av) in enumerate(seq):
        after, empty = _first(seq[i + 1 :], flags)
        if empty:
            after = after + follow
        if op is _sre.SUBPATTERN:
            _settled(av[3], after, flags | av[1])
        elif op in _REPEATS:
            char = _one_char(av[2], flags)
            if char is None or (av[0] != av[1] and any(_overlap(char, c) for c in after)):
                raise _Ambiguous(_NESTED)
        elif op is _sre.BRANCH:
            opened: list[tuple[list[_Char], list[_Char]]] = []
            for branch in av[1]:
                chars, nothing = _first(branch, flags)
                lead = _lead(branch, flags)
                if nothing or any(
                    not _apart(lead, other_lead)
                    and any(_overlap(a, b) for a in chars for b in other)
                    for other, other_lead in opened
                ):
                    raise _Ambiguous(_ALIKE)
                opened.append((chars, lead))
                _settled(branch, after, flags)
        elif op not in _ONE_CHAR and op not in _ZERO_WIDTH:
            raise _Ambiguous(_OPAQUE)


def _lead(seq: Any, flags: int) -> list[_Char]:
    """The one-character matchers ``seq`` opens with, in order, up to anything else."""
    lead: list[_Char] = []
    for op, av in seq:
        if op not in _ONE_CHAR:
            break
        lead.append((op, av, flags))
    return lead


def _apart(one: list[_Char], other: list[_Char]) -> bool:
    """Whether two alternatives' leads differ at some place no character fits both
    (``Sat|Sun``, ``25[0-5]|2[0-4]``): then they never match one text alike."""
    return any(not _overlap(a, b) for a, b in zip(one, other, strict=False))


def _ways(seq: Any) -> float:
    """An upper bound on the ways ``seq`` can match one text (inf: unbounded)."""
    total = 1.0
    for op, av in seq:
        if op in _ONE_CHAR or op in _ZERO_WIDTH:
            continue
        if op is _sre.SUBPATTERN:
            total *= _ways(av[3])
        elif op is _sre.BRANCH:
            total *= sum(_ways(branch) for branch in av[1])
        elif op in _REPEATS and av[1] is not _sre.MAXREPEAT and av[1] <= _FEW_PASSES:
            inner = _ways(av[2])
            total *= sum(inner**k for k in range(av[0], av[1] + 1))
        else:
            return float("inf")
        if total > _FEW_WAYS:
            return float("inf")
    return total


def _ambiguity(body: Any, flags: int) -> str:
    r"""Why passes of the repeated ``body`` could split one text more than one way ("" when
    they cannot): each choice must be settled by the next character, the next pass's opening
    counted as what follows the body's end. ``(\.\d+)+`` and ``(,\s*[a-z]+)*`` are settled;
    ``(a+)+``, ``(\w+\s?)+`` (a run of letters parts anywhere), ``(,\w*\d*)+`` (``\w*`` and
    ``\d*`` share each digit) and ``(,\w+|,\d+)+`` (both alternatives take ``,1``) are not: a
    failing search tries every split, exponentially many."""
    try:
        opening, _ = _first(body, flags)
        _settled(body, opening, flags)
    except _Ambiguous as exc:
        return str(exc)
    return ""


def _few_ways(repeat: Any, spent: list[float]) -> bool:
    """A repeat of a few passes over a body of bounded width, with few ways to match
    (``(\\d{1,3}\\.){3}``, an IPv4 octet's alternatives three times): its backtracking is
    bounded whatever the text, so its choices need not be settled. ``spent``: the ways of the
    repeats admitted so in the pattern, multiplied (several in a row multiply each other's)."""
    low, high, body = repeat
    if high is _sre.MAXREPEAT or high > _FEW_PASSES:
        return False
    ways = sum(_ways(body) ** k for k in range(low, high + 1))
    if spent[0] * ways > _FEW_WAYS:
        return False
    spent[0] *= ways
    return True


def _problem(parsed: Any, flags: int, spent: list[float]) -> str:
    for op, av in parsed:
        if op in _BACKREFS:
            return "it uses a backreference"
        if op is _sre.SUBPATTERN:
            found = _problem(av[3], flags | av[1], spent)
        else:
            found = next((p for s in _subpatterns(av) if (p := _problem(s, flags, spent))), "")
        if not found and op in _REPEATS and av[1] > 1 and not _few_ways(av, spent):
            found = _ambiguity(av[2], flags)
        if found:
            return found
    return ""


def regex_problem(pattern: str) -> str:
    """Why ``pattern`` cannot be a check ("" when it can): invalid, or shaped to backtrack
    catastrophically. Mining can use it to keep such patterns from ever becoming checks."""
    try:
        parsed = _sre.parse(pattern)
        re.compile(pattern)  # what parses can still fail here (a variable-width look-behind)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"it is an invalid pattern ({exc})"
    try:
        return _problem(parsed, parsed.state.flags, [1.0])
    except RecursionError:
        return "it nests groups too deeply to screen"
