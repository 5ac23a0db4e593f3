"""Meaning, as the simulated world reads it: key-concept sets over a small synonym table.

A real model follows an instruction whatever its wording; the simulated one should too, or the
experiments would only measure string copying. So guidance is compared on *concepts*: words are
folded to a canonical form (``identifier`` -> ``id``, ``heading`` -> ``section``, ``brief`` ->
``brief``), filler is dropped, and a line addresses a requirement when it carries all of the
requirement's concepts with the same polarity (an instruction to do, or not to do, the thing).

The simulated optimizer words its proposals with :func:`paraphrase`, which only swaps words
within a synonym group, so a paraphrase always means what the original meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from skillopt_core.backends.mock.world import stable_fraction

SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("id", "identifier"),
    ("section", "heading", "header"),
    ("brief", "short", "shorter", "concise", "under", "terse"),
    ("include", "add", "mention", "state", "give", "list", "show"),
    ("answer", "reply", "response", "output"),
    ("line", "row"),
    ("own", "separate", "dedicated"),
    ("never", "avoid", "not", "don't", "dont", "no"),
    ("always", "every", "each", "all", "whatever", "regardless", "any"),
    ("request", "task", "question", "ask"),
    ("use", "apply", "employ"),
    ("format", "form", "layout", "style"),
    ("name", "title"),
    ("check", "verify", "confirm"),
    ("paper", "article", "preprint"),
    ("table", "grid"),
)
_CANON = {word: group[0] for group in SYNONYMS for word in group}
_REWORDABLE = frozenset({"id", "section", "brief", "answer", "own", "format", "paper", "table"})
"""Groups :func:`paraphrase` swaps within (the others carry grammar: negation, scope, verbs)."""
NEGATION = "never"
BROAD = "always"

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "from",
        "by",
        "at",
        "as",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "please",
        "put",
        "make",
        "sure",
        "keep",
        "write",
        "follow",
        "required",
        "requested",
        "when",
        "what",
        "which",
        "your",
        "you",
        "we",
        "our",
        "their",
        "there",
        "than",
        "then",
        "so",
        "if",
        "into",
        "onto",
        "per",
        "some",
        "via",
        "about",
        "answer",
        "include",
        "use",
        "check",
        "correction",
        "wrong",
        "right",
        "still",
        "fails",
        "failing",
        "that's",
        "thats",
        "it's",
        "i",
        "me",
        "my",
        "like",
        "e",
        "g",
        "eg",
        "etc",
        "also",
        "just",
        "only",
        "one",
        "more",
        "much",
        "very",
        "too",
        "it'd",
        "do",
        "does",
        "did",
        "done",
        "need",
        "needs",
        "needed",
    ]
)
"""Filler words; ``answer`` / ``include`` / ``use`` / ``check`` are kept out of concept sets
because nearly every instruction says them."""

_WORD = re.compile(r"[a-z']+|[0-9]+")  # letters and digits apart: "arXiv:2510" -> arxiv, 2510


def _fold(word: str) -> str:
    word = word.strip("'")
    canon = _CANON.get(word, word)
    if canon not in _CANON.values() and len(canon) > 4 and canon[-1] == "s" and canon[-2] != "s":
        canon = canon[:-1]  # a crude plural fold: years -> year, limitations -> limitation
    return canon


def words(text: str) -> list[str]:
    return [_fold(w) for w in _WORD.findall(text.lower()) if w.strip("'")]


def concepts(text: str) -> frozenset[str]:
    """The content concepts of ``text`` (polarity and scope markers excluded)."""
    return frozenset(
        w for w in words(text) if w not in STOPWORDS and w not in (NEGATION, BROAD) and len(w) > 1
    )


def head(line: str) -> str:
    """The instruction itself: a guidance line up to its first colon, dash or semicolon."""
    text = line.strip().lstrip("-*• ").strip()
    return re.split(r":\s|\s[—–-]\s|;\s", text, maxsplit=1)[0]


@dataclass(frozen=True)
class Reading:
    """How the simulated target reads one guidance line."""

    concepts: frozenset[str]
    negative: bool  # the instruction says not to do the thing
    broad: bool  # the instruction claims every answer, whatever the request


def read_line(line: str) -> Reading:
    """Scope from the opening words, polarity from the instruction's first three words (after a
    broad opener such as ``In every answer:``), concepts from the whole line."""
    text = line.strip().lstrip("-*• ").strip()
    opening = [w for w in words(head(text)) if w != "the"]
    broad = any(a == BROAD and b in ("answer", "request") for a, b in pairwise(opening))
    instruction = text.split(": ", 1)[1] if broad and ": " in text else text
    return Reading(concepts(line), NEGATION in words(instruction)[:3], broad)


def paraphrase(text: str, *salt: object) -> str:
    """``text`` reworded by swapping words within their synonym groups (seeded, same meaning)."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        canon = _CANON.get(lowered)
        if canon not in _REWORDABLE or lowered == "under":
            return word  # "under N characters" stays readable
        group = next(g for g in SYNONYMS if g[0] == canon)
        choices = [w for w in group if w != "under"]
        pick = choices[int(stable_fraction(*salt, lowered) * len(choices))]
        return pick.capitalize() if word[:1].isupper() else pick

    return re.sub(r"[A-Za-z']+", swap, text)


def line_addresses(reading: Reading, need: frozenset[str], negative: bool) -> bool:
    """The line tells the target to do (or not do) what the requirement asks."""
    return bool(need) and need <= reading.concepts and reading.negative == negative


def line_contradicts(reading: Reading, need: frozenset[str], negative: bool) -> bool:
    """The line tells the target the opposite of what the requirement asks."""
    return bool(need) and need <= reading.concepts and reading.negative != negative


def carries(skill: str, guidance: str) -> bool:
    """The skill already says what ``guidance`` says (verbatim or reworded)."""
    wanted = read_line(guidance)
    return any(
        line_addresses(read_line(line), wanted.concepts, wanted.negative)
        for line in skill.splitlines()
        if line.strip()
    )
