"""Is a later user turn feedback on the previous attempt, or a new request?

Feedback turns (corrections, approvals, "continue") and amendments ("also update the docs") are
evidence about an attempt; they are never requests to replay. The harvester attaches its own signals; this classifier decides which user
turns open a new goal and fills in signals the harvester did not record.
"""

from __future__ import annotations

import re

from skillopt_core.redaction import redact
from skillopt_sleep.harvest.signals import (
    FOREIGN_APPROVAL,
    FOREIGN_CORRECTION_ANY,
    FOREIGN_CORRECTION_START,
)
from skillopt_sleep.mine.masking import CUT_MARKER, NOSPACE
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
_FOREIGN_START = re.compile(rf"^\W*(?:{FOREIGN_CORRECTION_START})", re.IGNORECASE)
_FOREIGN_ANY = re.compile(FOREIGN_CORRECTION_ANY, re.IGNORECASE)
_FOREIGN_APPROVAL = re.compile(rf"^\W*(?:{FOREIGN_APPROVAL})", re.IGNORECASE)
_FOREIGN_AMENDMENT = re.compile(
    r"^\W*(?:另外|还有|還有|顺便|順便|あと、|それと|ついでに|그리고|또한|außerdem\b|zusätzlich\b"
    r"|und (?:bitte )?auch\b|et aussi\b|en plus\b|además\b|y también\b|também\b|além disso\b"
    r"|а также\b|также\b|и ещё\b|и еще\b|заодно\b)",
    re.IGNORECASE,
)
_NOSPACE_RUN = re.compile(f"[{NOSPACE}]+")


def word_count(text: str) -> int:
    """Whitespace-separated words, where a run of a script written without spaces counts a word
    per two characters ("修复一下失败的登录单元测试" is 6 words, not 1)."""
    count = 0
    for word in text.split():
        runs = _NOSPACE_RUN.findall(word)
        count += max(1, sum((len(run) + 1) // 2 for run in runs)) if runs else 1
    return count


MAX_FEEDBACK_WORDS = 40
# What a session may open with that reads as feedback later on: "revert the migration" is a task
# of its own, and "ok, add pagination to /users" is a request with a courtesy in front of it, so a
# first turn counts as an approval only when that is all it says ("thanks", "looks good").
_OPENS_A_TASK = re.compile(r"^\W*(revert|undo)\b", re.IGNORECASE)
MAX_OPENING_APPROVAL_WORDS = 3
MAX_AMENDMENT_WORDS = 20


def classify_followup(text: str) -> SignalKind | None:
    """The kind of feedback ``text`` is, or None when it reads as a request in its own right."""
    stripped = text.strip()
    words = word_count(stripped)
    if not stripped:
        return SignalKind.APPROVAL
    if words <= MAX_FEEDBACK_WORDS and (
        _CORRECTION_START.match(stripped)
        or _CORRECTION_ANY.search(stripped)
        or _FOREIGN_START.match(stripped)
        or _FOREIGN_ANY.search(stripped)
    ):
        return SignalKind.CORRECTION
    if words <= 12 and (_APPROVAL.match(stripped) or _FOREIGN_APPROVAL.match(stripped)):
        return SignalKind.APPROVAL
    return None


def is_amendment(text: str) -> bool:
    """A short turn that adds to the request before it ("also …", "… as well")."""
    stripped = text.strip()
    if word_count(stripped) > MAX_AMENDMENT_WORDS:
        return False
    return bool(
        _AMENDMENT.match(stripped)
        or _AMENDMENT_END.search(stripped)
        or _FOREIGN_AMENDMENT.match(stripped)
    )


def opens_as_feedback(text: str) -> bool:
    """Feedback that says so in its first words ("no, …", "it still …", "thanks", "continue",
    "also …"): a reaction to an answer even with no request before it. A feedback phrase further
    in ("… is failing again, please fix it") is not enough on its own: a session can open with a
    recurring request worded that way."""
    stripped = text.strip()
    words = word_count(stripped)
    if _OPENS_A_TASK.match(stripped):
        return False
    return bool(
        _CONTINUE.match(stripped)
        or (
            words <= MAX_FEEDBACK_WORDS
            and (_CORRECTION_START.match(stripped) or _FOREIGN_START.match(stripped))
        )
        or (
            words <= MAX_OPENING_APPROVAL_WORDS
            and (_APPROVAL.match(stripped) or _FOREIGN_APPROVAL.match(stripped))
        )
        or (
            words <= MAX_AMENDMENT_WORDS
            and (_AMENDMENT.match(stripped) or _FOREIGN_AMENDMENT.match(stripped))
        )
    )


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


def excerpt_ends(text: str, limit: int) -> str:
    """Like ``excerpt``, but a text too long keeps its head *and* its tail (half each) around a
    ``CUT_MARKER`` that says how much was cut: the question after a pasted log survives."""
    folded = " ".join(redact(text).split())
    if len(folded) <= limit:
        return folded
    room = limit - len(CUT_MARKER.format(len(folded))) - 2  # the marker never grows past this
    head = folded[: (room + 1) // 2].rstrip()
    tail = folded[len(folded) - room // 2 :].lstrip()
    return f"{head} {CUT_MARKER.format(len(folded) - len(head) - len(tail))} {tail}"
