"""Feedback evidence from a session's turns: corrections, approvals, retries, tool errors, interrupts.

Pure functions over a session's turns. A signal's ``turn_index`` is the index (in
``Session.turns``) of the user request it judges: a correction judges the request before it, a
tool error the request whose reply failed.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from skillopt_sleep.records import SignalKind

Step = tuple[str, str, Any, tuple[tuple[Any, ...], ...]]  # see ``_build.Step``
Signal_ = tuple[str, int, str]  # (SignalKind value, turn index, excerpt)
TOOL_ERROR, RETRY, INTERRUPTED = (
    SignalKind.TOOL_ERROR.value,
    SignalKind.RETRY.value,
    SignalKind.INTERRUPTED.value,
)

_CORRECTION = re.compile(
    r"^\s*(?:no\b|nope\b|wrong\b|not quite\b|incorrect\b|actually,? no\b|that'?s not\b|undo\b|revert\b)"
    r"|\b(?:that'?s|this is|it'?s|you'?re) (?:wrong|incorrect|not right|not what)"
    r"|\bwrong (?:format|file|answer|output|approach|place|one)\b"
    r"|\bstill (?:fail|failing|fails|broken|wrong|crash|crashing|not work|doesn'?t work|errors?)"
    r"|\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not) (?:work|compile|pass|fix)"
    r"|\bnot what i (?:asked|wanted|meant)\b"
    r"|\byou (?:broke|missed|forgot|ignored)\b"
    r"|\b(?:try again|that broke)\b",
    re.IGNORECASE,
)
_APPROVAL = re.compile(
    r"^\s*(?:thanks|thank you|thx|ty|perfect|great|excellent|awesome|nice|lgtm|looks good|works)\b"
    r"|\b(?:that|it|this) (?:works|worked|fixed it)\b|\bworks (?:now|great|perfectly)\b"
    r"|\b(?:looks good|well done|good job)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9_.:/-]+")
RETRY_SIMILARITY = 0.6
# A retry is looked for among this many requests before it (the nearest similar one is taken):
# each comparison is a set operation, so comparing with every earlier request cost O(n^2) -
# 10 s for a session of 5,000 distinct prompts, hours for a crafted one of 100,000.
RETRY_LOOKBACK = 100
EXCERPT = 160


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Jaccard similarity; it is at most min / max of the sizes, which rejects most pairs early."""
    small, large = sorted((len(a), len(b)))
    if small < 3 or small < RETRY_SIMILARITY * large:
        return False
    return len(a & b) / len(a | b) >= RETRY_SIMILARITY


# Words one of the patterns needs; text without any of them skips the regexes (most prompts).
_CORRECTION_HINTS = (
    "no",
    "wrong",
    "not",
    "n't",
    "incorrect",
    "still",
    "undo",
    "revert",
    "you",
    "again",
    "broke",
)
_APPROVAL_HINTS = (
    "thank",
    "thx",
    "ty",
    "perfect",
    "great",
    "excellent",
    "awesome",
    "nice",
    "lgtm",
    "good",
    "work",
    "fixed",
)


def classify(text: str) -> SignalKind | None:
    """Correction beats approval ("thanks, but it still fails" is a correction)."""
    head = text[:600]
    low = head.lower()
    if any(h in low for h in _CORRECTION_HINTS) and _CORRECTION.search(head):
        return SignalKind.CORRECTION
    if any(h in low for h in _APPROVAL_HINTS) and _APPROVAL.search(head):
        return SignalKind.APPROVAL
    return None


def detect(steps: Sequence[Step], interrupted: Iterable[int] = ()) -> tuple[Signal_, ...]:
    """Signals for a session's turns, as ``(kind, turn index, excerpt)``.

    ``steps``: the turns as ``(role, text, ts, calls)`` tuples (see ``_build``); ``interrupted``
    holds indices of user turns the user cut short.
    """
    found: list[Signal_] = []
    # (turn index, words) of the latest prior user turns
    requests: deque[tuple[int, frozenset[str]]] = deque(maxlen=RETRY_LOOKBACK)
    last_user: int | None = None
    for index, (role, text, _ts, calls) in enumerate(steps):
        if role == "assistant":
            if last_user is not None:
                for call in calls:
                    if call[4]:
                        found.append((TOOL_ERROR, last_user, f"{call[1]}: {call[3]}"[:EXCERPT]))
            continue
        kind = classify(text) if last_user is not None else None
        excerpt = text[:EXCERPT]
        if kind is not None and last_user is not None:
            found.append((kind.value, last_user, excerpt))
        if kind is None:
            words = _words(text)
            if len(words) >= 3:
                for prior_index, prior_words in reversed(requests):
                    if _similar(words, prior_words):
                        found.append((RETRY, prior_index, excerpt))
                        break
            requests.append((index, words))
        last_user = index
    for index in sorted(set(interrupted)):
        if 0 <= index < len(steps) and steps[index][0] == "user":
            found.append((INTERRUPTED, index, steps[index][1][:EXCERPT]))
    return tuple(found)
