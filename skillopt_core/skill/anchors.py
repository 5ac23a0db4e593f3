"""Locate an edit's anchor in the editable part of a skill document.

The optimizer quotes anchors from memory, so matching is tiered: exact, then whitespace-normalised,
then case-insensitive. Each tier only counts matches that lie wholly inside one editable span, and
a tier with several matches is *ambiguous*: we refuse rather than guess, because editing the wrong
copy silently changes the skill's meaning. The case-insensitive tier is safe for the same reason:
it is used only when it pins down a single location (LLMs often re-capitalise a quoted sentence).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from skillopt_core.skill.document import editable_spans

NOT_FOUND = "anchor not found"
AMBIGUOUS = "ambiguous anchor"
PROTECTED = "anchor inside protected region"

EXACT = "exact"
WHITESPACE = "whitespace-normalised"
CASE = "case-insensitive"


@dataclass(frozen=True)
class AnchorMatch:
    """Either a unique ``(start, end)`` location or the reason there is none."""

    start: int = -1
    end: int = -1
    reason: str = ""
    tier: str = ""

    @property
    def found(self) -> bool:
        return not self.reason


def _exact(text: str, anchor: str) -> Iterator[tuple[int, int]]:
    # Overlapping occurrences count: "aa" in "aaa" is ambiguous.
    pos = text.find(anchor)
    while pos >= 0:
        yield pos, pos + len(anchor)
        pos = text.find(anchor, pos + 1)


def _pattern(anchor: str, flags: int) -> re.Pattern[str]:
    return re.compile(r"\s+".join(re.escape(token) for token in anchor.split()), flags)


def find_anchor(text: str, anchor: str) -> AnchorMatch:
    """Find the unique editable location of ``anchor`` in ``text``."""
    if not anchor.strip():
        return AnchorMatch(reason="empty anchor")
    spans = editable_spans(text)
    tiers: list[tuple[str, Iterator[tuple[int, int]]]] = [
        (EXACT, _exact(text, anchor)),
        (WHITESPACE, ((m.start(), m.end()) for m in _pattern(anchor, 0).finditer(text))),
        (CASE, ((m.start(), m.end()) for m in _pattern(anchor, re.I).finditer(text))),
    ]
    seen_protected = False
    for tier, matches in tiers:
        hits = []
        for start, end in matches:
            if any(lo <= start and end <= hi for lo, hi in spans):
                hits.append((start, end))
            else:
                seen_protected = True
        if len(hits) == 1:
            return AnchorMatch(hits[0][0], hits[0][1], tier=tier)
        if len(hits) > 1:
            return AnchorMatch(reason=f"{AMBIGUOUS} ({len(hits)} matches)")
    return AnchorMatch(reason=PROTECTED if seen_protected else NOT_FOUND)
