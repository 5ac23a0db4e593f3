"""Is a later user turn feedback on the previous attempt, or a new request?

Feedback turns (corrections, approvals, "continue") and amendments ("also update the docs") are
evidence about an attempt; they are never requests to replay. The harvester attaches its own signals; this classifier decides which user
turns open a new goal and fills in signals the harvester did not record.
"""

from __future__ import annotations

import re

from skillopt_core.redaction import redact
from skillopt_sleep.records import SignalKind

_APPROVAL = re.compile(
    r"^\W*(thanks|thank you|thx|ty|great|perfect|awesome|nice|excellent|lgtm|looks good|that works|"
    r"works( now)?|that did it|that fixed it|ok(ay)?|cool|yes|yep|yup|correct|exactly|good)\b",
    re.IGNORECASE,
)
_CONTINUE = re.compile(
    r"^\W*(continue|go on|go ahead|proceed|keep going|carry on|next|do it|yes,? please|please continue|"
    r"resume|and\?|more)\W*$",
    re.IGNORECASE,
)
_CORRECTION_START = re.compile(
    r"^\W*(no\b|nope|wrong|not quite|not right|incorrect|that'?s (wrong|not|incorrect)|"
    r"(it|this|the \w+) (still|is still|keeps)|still\b|you (forgot|missed|broke|didn'?t)|"
    r"that (didn'?t|doesn'?t|broke)|try again|revert|undo|again\b|once more|as i (said|asked)|"
    r"i (said|told you|asked for)|like i said|same (error|problem|issue|thing))",
    re.IGNORECASE,
)
_CORRECTION_ANY = re.compile(
    r"\b(still (fails?|failing|broken|wrong|errors?)|doesn'?t work|didn'?t work|not what i (asked|wanted)|"
    r"wrong (format|file|answer|id|output)|you broke|that'?s wrong|(please|pls) again|"
    r"again,? (please|pls)|same (error|problem|issue) again)\b|\bagain\W*$",
    re.IGNORECASE,
)
# An amendment extends the request it follows ("also update the docs", "add a test too"): it only
# makes sense against that attempt, so replaying it alone would judge a context-free fragment.
# ("now add a --json flag" after an approval is a new goal of its own, and stays one.)
_AMENDMENT = re.compile(
    r"^\W*(and\s+)?(also|additionally|plus|oh,? and|one more thing|while you'?re at it)\b",
    re.IGNORECASE,
)
_AMENDMENT_END = re.compile(r"\b(too|as well)\W*$", re.IGNORECASE)
MAX_FEEDBACK_WORDS = 40
MAX_AMENDMENT_WORDS = 20


def classify_followup(text: str) -> SignalKind | None:
    """The kind of feedback ``text`` is, or None when it reads as a request in its own right."""
    stripped = text.strip()
    words = len(stripped.split())
    if not stripped:
        return SignalKind.APPROVAL
    if words <= MAX_FEEDBACK_WORDS and (
        _CORRECTION_START.match(stripped) or _CORRECTION_ANY.search(stripped)
    ):
        return SignalKind.CORRECTION
    if words <= 12 and _APPROVAL.match(stripped):
        return SignalKind.APPROVAL
    return None


def is_amendment(text: str) -> bool:
    """A short turn that adds to the request before it ("also …", "… as well")."""
    stripped = text.strip()
    if len(stripped.split()) > MAX_AMENDMENT_WORDS:
        return False
    return bool(_AMENDMENT.match(stripped) or _AMENDMENT_END.search(stripped))


def is_followup(text: str) -> bool:
    """Feedback, a bare "continue" or an amendment: part of the attempt before it, never a new
    request."""
    stripped = text.strip()
    return (
        bool(_CONTINUE.match(stripped))
        or classify_followup(stripped) is not None
        or is_amendment(stripped)
    )


def excerpt(text: str, limit: int = 400) -> str:
    """Redacted, whitespace-folded, bounded: redaction comes before truncation."""
    folded = " ".join(redact(text).split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"
