"""Refuse an edit that tells the agent the opposite of a line it already learned.

The gate weighs only the tasks in front of it, so an ``add`` saying "Never include a 'Testing'
section" can pass beside a learned "Always include a 'Testing' section", and the agent then
reads both for good. :func:`contradiction_refusal` finds such a pair where edits are applied
(:func:`~skillopt_core.skill.edits.apply_edits`): a line the edit writes into the learned text
(the editable spans of :mod:`~skillopt_core.skill.document`, so neither the frontmatter nor the
user's protected region) that gives an instruction of the opposite polarity about the same
subject as a learned line the edit keeps. The reason names that line and asks for a ``replace``
of it; replacing the contradicted line itself is never refused, nor is an edit that only rewords
a contradiction the text already held.

Precision comes first, because a refused edit is blocked for good in the rejected-edit buffer:

- polarity is read only from an instruction's opening words ("Always", "Must", "Use", "Prefer",
  "Never", "Don't", "Avoid", "Stop", "No longer", ...); a sentence that opens otherwise gives no
  instruction, except a bare imperative whose verb is the one a prohibition forbids ("Run the
  linter" against "Never run the linter"); two negatives ("never skip") are left alone;
- two instructions are about the same subject when their content words (polarity words, stop
  words and the presence verbs use / include / add / mention removed, plurals folded, heading
  and header read as section) are the same set, or when their instructions before a colon are
  the same set and share a quoted or backticked term;
- a line with a condition or an exception anywhere ("unless", "except", "if", "when", "only",
  "but", ...) is left alone, as are headings, tables, HTML comments, questions and code blocks.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill.anchors import find_anchor
from skillopt_core.skill.document import editable_spans

__all__ = [
    "CONTRADICTION_PREFIX",
    "Claim",
    "as_replacement",
    "claims",
    "contradiction_refusal",
    "contradicts",
]

CONTRADICTION_PREFIX = "refused as a contradiction: "
"""How the reason of an edit refused for contradicting a learned line starts."""

MAX_LINE_CHARS = 1000
"""A longer line is read as no instruction: it bounds the work, and the cache, per line."""

_FENCE_RE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_SKIPPED_LINE_RE = re.compile(r"[ \t]*(?:#|\||<!--|>)")
_BULLET_RE = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_QUOTED_RE = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|(?<![\w'])'([^'\n]+)'(?![\w'])")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;])\s+")
_HEAD_END_RE = re.compile(r":\s")  # "instruction: why"; a dash often qualifies it
_WORD_RE = re.compile(r"\x00\d+\x00|[a-z0-9]+(?:['./_-][a-z0-9]+)*")
_PLACEHOLDER_RE = re.compile(r"\x00(\d+)\x00")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEGATIVE = _words(
    "never don't dont do_not does_not must_not mustn't should_not shouldn't cannot can't "
    "avoid avoiding stop no_longer refrain skip omit without not no"
)
_POSITIVE = _words("always must should do ensure prefer remember make_sure be_sure")
_PRESENCE = _words(
    "use uses using include includes including add adds adding mention mentions mentioning"
)
_FILLER = _words("please you we ever also from to that")
_PAIRS = {
    ("do", "not"): "do_not",
    ("does", "not"): "does_not",
    ("must", "not"): "must_not",
    ("should", "not"): "should_not",
    ("no", "longer"): "no_longer",
    ("make", "sure"): "make_sure",
    ("be", "sure"): "be_sure",
}
_CONDITIONAL = _words(
    "unless except excepting exception if when whenever where wherever only but otherwise "
    "until while provided providing whether sometimes usually typically generally"
)
# prepositions are content: "deploy by Friday" is not "deploy on Friday", "sync from" not "to"
_STOP = _words(
    "a an the and or of as is are be been being it its this that "
    "these those your you we our their there please also just then so do does"
)
_MID_NEGATION = _words("not never no don't dont doesn't won't can't cannot")
_SYNONYMS = {"heading": "section", "header": "section"}


@dataclass(frozen=True)
class Claim:
    """One instruction read from a sentence: its ``polarity`` (1 do, -1 do not, 0 none stated),
    the ``verb`` its instruction opens with ("" for an article or a quoted term: a bare sentence
    counts as an imperative only against a prohibition of that verb), its content words, and
    those of its part before a colon with the quoted terms that part holds."""

    polarity: int
    verb: str
    subject: frozenset[str]
    head: frozenset[str]
    terms: frozenset[str]


def _fold(word: str) -> str:
    if word in _MID_NEGATION:
        return "not"
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return _SYNONYMS.get(word, word)


def _tokens(text: str, terms: list[str]) -> list[str]:
    """Lower-case words of ``text``; a quoted span (a placeholder) is its term's words, and a
    backticked one its whole text."""
    out: list[str] = []
    for word in _WORD_RE.findall(text):
        found = _PLACEHOLDER_RE.fullmatch(word)
        if found is None:
            out.append(word)
            continue
        term = terms[int(found.group(1))]
        out.extend([term] if term.startswith("`") else _WORD_RE.findall(term))
    return out


def _subject(words: Iterable[str]) -> frozenset[str]:
    return frozenset(
        _fold(w) for w in words if w not in _STOP and w not in _PRESENCE and w.strip("`")
    )


def _head(words: list[str]) -> tuple[int, int, int]:
    """How many opening words give the instruction's polarity: (count, negatives, positives)."""
    i = negative = positive = 0
    while i < len(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        pair = _PAIRS.get((words[i], following))
        word, width = (pair, 2) if pair else (words[i], 1)
        if word == "stop" and not following.endswith("ing"):
            break  # "stop adding X" forbids; "stop the server" is an instruction of its own
        if word in _NEGATIVE:
            negative += 1
        elif word in _POSITIVE or word in _PRESENCE:
            positive += 1
        elif word not in _FILLER:
            break
        i += width
    return i, negative, positive


def _claim(sentence: str) -> Claim | None:
    terms: list[str] = []

    def hold(match: re.Match[str]) -> str:
        raw = next(g for g in match.groups() if g is not None)
        folded = " ".join(raw.lower().split())
        terms.append(f"`{folded}`" if match.group(1) is not None else folded)
        return f" \x00{len(terms) - 1}\x00 "

    text = _QUOTED_RE.sub(hold, sentence).replace("*", " ").lower()
    if text.rstrip().endswith("?"):
        return None
    words = _tokens(text, terms)
    opened, negative, positive = _head(words)
    if negative > 1 or not words[opened:]:
        return None
    polarity = -1 if negative else 1 if positive else 0
    head_text = _HEAD_END_RE.split(text, maxsplit=1)[0]
    head_terms = [terms[int(n)] for n in _PLACEHOLDER_RE.findall(head_text)]
    verb = words[opened] if words[opened] not in _STOP and words[opened][0] != "`" else ""
    return Claim(
        polarity,
        _fold(verb),
        _subject(words[opened:]),
        _subject(_tokens(head_text, terms)[opened:]),
        frozenset(head_terms),
    )


def claims(line: str) -> tuple[Claim, ...]:
    """The instructions ``line`` gives, one per sentence; none when the line carries a condition
    or an exception, is a heading, a table row, a quotation or an HTML comment, or is longer
    than any instruction (:data:`MAX_LINE_CHARS`)."""
    if len(line) > MAX_LINE_CHARS or _SKIPPED_LINE_RE.match(line):
        return ()
    return _claims(line)


@functools.lru_cache(maxsize=4096)
def _claims(line: str) -> tuple[Claim, ...]:
    text = _BULLET_RE.sub("", line, count=1).translate(_QUOTES).replace("\x00", "").strip()
    bare = _QUOTED_RE.sub(" ", text).lower()
    if any(w in _CONDITIONAL for w in _WORD_RE.findall(bare)):
        return ()
    found = (_claim(s) for s in _SENTENCE_END_RE.split(text) if s.strip())
    return tuple(c for c in found if c is not None and c.subject)


def _opposed(a: Claim, b: Claim) -> bool:
    if a.polarity * b.polarity == -1:
        polar = True
    else:  # a bare "Run the linter" against "Never run the linter"
        polar = {a.polarity, b.polarity} == {0, -1} and bool(a.verb) and a.verb == b.verb
    if not polar:
        return False
    if a.subject == b.subject:
        return True
    return bool(a.head) and a.head == b.head and bool(a.terms & b.terms)


def contradicts(line: str, other: str) -> bool:
    """Whether ``line`` and ``other`` give opposite instructions about the same subject."""
    return any(_opposed(a, b) for a in claims(line) for b in claims(other))


def _learned_lines(text: str) -> Iterator[str]:
    """The lines of the learned text (the editable spans) outside fenced code blocks."""
    for start, end in editable_spans(text):
        fence = ""
        for line in text[start:end].splitlines():
            opening = _FENCE_RE.match(line)
            if fence:
                if opening and opening.group(1).startswith(fence):
                    fence = ""
            elif opening:
                fence = opening.group(1)
            elif line.strip():
                yield line.strip()


def contradiction(before: str, after: str) -> tuple[str, str] | None:
    """A line ``after`` writes into the learned text and the learned line ``before`` already had
    that it contradicts, or None. A contradiction the edit only rewords (a line it removed said
    the same against that line) is not the edit's."""
    old, new = Counter(_learned_lines(before)), Counter(_learned_lines(after))
    written, kept, removed = new - old, new & old, old - new
    for line in written:
        if not claims(line):
            continue
        for other in kept:
            if contradicts(line, other) and not any(contradicts(r, other) for r in removed):
                return line, other
    return None


def contradiction_refusal(before: str, after: str) -> str:
    """Why the edit that turned ``before`` into ``after`` is refused before any evaluation
    (starting with :data:`CONTRADICTION_PREFIX`), or "" when it contradicts no learned line."""
    found = contradiction(before, after)
    if found is None:
        return ""
    line, other = found
    return (
        f"{CONTRADICTION_PREFIX}{line!r} says the opposite of the learned line {other!r}; "
        "replace that line instead"
    )


def as_replacement(text: str, edit: Edit) -> Edit:
    """``edit`` itself, or, for a one-line ``add`` that says the opposite of exactly one learned
    line of ``text``, a ``replace`` of that line with it: the gate then weighs the new
    instruction against the old one instead of keeping both, and which of the two is right is
    left to it. Refusing the add instead would block it for good, and it may be the right one.
    Anything else stays as proposed, and :func:`contradiction_refusal` refuses it if it still
    contradicts: a block of lines (a heading and its list would land inside another list), an
    add that contradicts several lines, or a line the anchor cannot name uniquely (written
    twice, or the start of a longer line)."""
    if edit.op is not EditOp.ADD:
        return edit
    lines = [line.strip() for line in edit.content.splitlines() if line.strip()]
    if len(lines) != 1 or not claims(lines[0]):
        return edit
    opposed = {other for other in _learned_lines(text) if contradicts(lines[0], other)}
    if len(opposed) != 1:
        return edit
    (other,) = opposed
    if not find_anchor(text, other).found:
        return edit
    return replace(
        edit,
        op=EditOp.REPLACE,
        anchor=other,
        rationale=f"{edit.rationale} (an add that replaces the learned line it "
        "contradicts)".lstrip(),
    )
