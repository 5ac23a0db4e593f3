"""Deterministic judge synthesis: turn a family's corrections into checks that catch the mistake.

Serves the mock backend and is the fallback when the optimizer's structured reply fails. Each
rule reads one common way developers correct an agent:

- an example of the wanted form ("like arXiv:2510.04618", "e.g. `v1.2.3`") -> a ``regex`` that
  generalises the example (digit runs become ``\\d+``), anchored to a line when the user asked for
  its own line;
- a thing to look at or mention ("check the session cookie name", "mention the migration") ->
  ``contains`` on the named thing;
- a prohibition ("don't add retries", "never use print") -> ``not_contains`` only (the thing it
  names is never also a ``contains``);
- a length complaint ("too long", "under 200 words") -> ``max_chars``;
- a missing section ("add a Testing section") -> ``section_present``;
- a tool to use ("use the grep tool", "run pytest") -> ``tool_called``.

The rules read English. A correction in another language gives no check unless it quotes English
in these shapes; a named thing or an example then ends where the text turns to another script
("session_cookie名称" names ``session_cookie``) or to a German, French, Spanish or Portuguese
function word ("use the cursor en lugar del offset" names ``cursor``): a check on half a foreign
sentence would fail every answer alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from skillopt_core.redaction import PLACEHOLDER_RE
from skillopt_sleep.records import Check

_EXAMPLE = re.compile(
    r"\b(?:like|as in|e\.g\.?|such as|in the form|formatted as|format(?: it)? as|as)\s*:?\s+"
    r"[`'\"]?([A-Za-z][\w.\-]*[:/#][\w.\-/#:]*\d[\w.\-/#:]*|[A-Za-z]*\d[\w.\-:/#]*)",
    re.IGNORECASE,
)
_OWN_LINE = re.compile(r"\b(own|separate|single|its own|a new) line\b", re.IGNORECASE)
_NAMED = re.compile(
    r"\b(?:check|look at|use|mention|include|handle|update|consider|read)\s+(?:the|a|an|our|its|that)?\s*"
    r"([A-Za-z_][\w./\-]*(?:\s+[A-Za-z_][\w./\-]*){0,3})",
    re.IGNORECASE,
)
_NEGATION = r"\b(?:don['’]?t|do not|never|stop|without|no more|avoid)\s+"
_PROHIBIT = re.compile(
    _NEGATION + r"(?:using|use|adding|add|mention(?:ing)?|include|including)?\s*"
    r"(?:the|a|an|any)?\s*([`'\"]?[\w./\-]+(?:\s+[\w./\-]+){0,2})",
    re.IGNORECASE,
)
# "never use print" names print only to forbid it: a named thing right after a negation is not
# wanted (it is the prohibition's ``not_contains``, never also a ``contains``)
_NEGATED = re.compile(_NEGATION + r"$", re.IGNORECASE)
_LIMIT = re.compile(
    r"\b(?:under|at most|max(?:imum)?|no more than|less than|within)\s+(\d+)\s*(words?|chars?|characters|lines?)",
    re.IGNORECASE,
)
_TOO_LONG = re.compile(r"\b(too long|too verbose|shorter|more concise|tl;?dr)\b", re.IGNORECASE)
_SECTION = re.compile(
    r"(?:\b(?:add|include|with|missing|needs?)\s+(?:a|an|the)?\s*[`'\"]?([A-Z][\w ]{1,30}?)[`'\"]?\s+section\b|^#+\s+(.+)$)",
    re.MULTILINE,
)
_TOOL = re.compile(
    r"\b(?:use|call|run)\s+(?:the\s+)?[`'\"]?([\w\-]+)[`'\"]?\s+tool\b", re.IGNORECASE
)
_STOP_TAIL = {
    "name",
    "names",
    "value",
    "values",
    "file",
    "format",
    "setting",
    "settings",
    "again",
    "first",
    "please",
    "pls",
    "instead",
    "too",
}
_STOP_WORDS = {
    "it",
    "this",
    "that",
    "them",
    "there",
    "what",
    "which",
    "same",
    "way",
    "one",
    "thing",
    "test",
    "tests",
    "problem",
    "issue",
    # what the optional article and verb groups leave behind when the phrase itself is masked
    # ("use the [REDACTED:github-token] token" named "the")
    "the",
    "a",
    "an",
    "use",
    "using",
    "add",
    "include",
    "mention",
}
_TAIL_CUT = re.compile(
    r"\s+(?:and|or|but|so|then|because|before|after|when|if|to|for|in|on|with|of)\b.*$"
    # the same joints in German, French, Spanish, Portuguese: the English phrase ends there
    r"|\s+(?:und|oder|aber|statt|anstatt|bitte|für|mit|plutôt|que|et|ou|mais|au|pour|avec|dans"
    r"|en|del?|la|las|los|el|y|pero|para|con|em|por|vez)(?=\s|$).*$",
    re.IGNORECASE,
)
# a letter of a script other than Latin: a phrase or an example ends before it
_NON_LATIN = re.compile(r"[^\W\d_A-Za-z\u00c0-\u024f\u1e00-\u1eff]")


def _latin_head(text: str) -> str:
    """``text`` up to the first letter of another script, without the separators it ends on."""
    cut = _NON_LATIN.search(text)
    return (text[: cut.start()] if cut else text).rstrip(" _.-:/#")


WORDS_TO_CHARS = 7
LINES_TO_CHARS = 100


def _clean_phrase(phrase: str) -> str:
    phrase = _TAIL_CUT.sub("", _latin_head(phrase.strip(" `'\".,;:!?")))
    words = phrase.split()
    while words and words[-1].lower() in _STOP_TAIL:
        words.pop()
    text = " ".join(words)
    if not words or words[0].lower() in _STOP_WORDS or words[-1].lower() == "tool" or len(text) < 3:
        return ""
    return text


def generalize_example(example: str) -> str:
    """A regex matching values shaped like ``example``: digit runs vary, everything else literal."""
    example = example.rstrip(".,;:!?)")
    parts = re.split(r"(\d+)", example)
    return "".join(r"\d+" if part.isdigit() else re.escape(part) for part in parts if part)


def checks_from_feedback(feedback: Iterable[str], reply_chars: int = 0) -> list[Check]:
    """Checks that a corrected mistake would fail, from the text of the corrections."""
    found: dict[tuple[str, str], Check] = {}

    def add(kind: str, value: str, why: str) -> None:
        key = (kind, value.lower())
        if value and key not in found:
            found[key] = Check(kind, value, why)

    for said in feedback:
        quoted = f"from the correction {said[:160]!r}"
        # compared as text: full-width letters are letters; a masked span names nothing
        text = PLACEHOLDER_RE.sub(" ; ", unicodedata.normalize("NFKC", said))
        for match in _EXAMPLE.finditer(text):
            example = _latin_head(match.group(1))
            pattern = generalize_example(example)
            if r"\d+" in pattern or re.search(r"[:/#]", example):
                if _OWN_LINE.search(text):
                    pattern = rf"(?m)^\s*{pattern}\s*$"
                add("regex", pattern, f"use the requested format ({example}) {quoted}")
        for match in _NAMED.finditer(text):
            phrase = _clean_phrase(match.group(1))
            if phrase and not _NEGATED.search(text, 0, match.start()):
                add("contains", phrase, f"address {phrase!r} {quoted}")
        for match in _PROHIBIT.finditer(text):
            phrase = _clean_phrase(match.group(1))
            if phrase:
                add("not_contains", phrase, f"avoid {phrase!r} {quoted}")
        for match in _LIMIT.finditer(text):
            count, unit = int(match.group(1)), match.group(2).lower()
            scale = (
                1
                if unit.startswith("char")
                else LINES_TO_CHARS
                if unit.startswith("line")
                else WORDS_TO_CHARS
            )
            add("max_chars", str(count * scale), f"keep it under {count} {unit} {quoted}")
        if _TOO_LONG.search(text) and reply_chars and not _LIMIT.search(text):
            add(
                "max_chars",
                str(max(200, int(reply_chars * 0.7))),
                f"be shorter than the rejected answer {quoted}",
            )
        for match in _SECTION.finditer(text):
            title = _latin_head((match.group(1) or match.group(2) or "").strip())
            if title:
                add("section_present", title, f"include the {title!r} section {quoted}")
        for match in _TOOL.finditer(text):
            add("tool_called", match.group(1), f"use the {match.group(1)} tool {quoted}")
    return list(found.values())  # two that disagree are the miner's sign of two tasks (coherence)


def rubric_for(intent: str, corrections: Iterable[str], approvals: Iterable[str]) -> str:
    """A judge rubric that states the task and the mistakes users corrected."""
    lines = [f"The answer must fully accomplish this recurring request: {intent}"]
    fixes = list(dict.fromkeys(corrections))
    if fixes:
        lines.append(
            "Earlier attempts were corrected by the user; the answer must not repeat those mistakes:"
        )
        lines.extend(f"- {text}" for text in fixes[:6])
    if list(approvals):
        lines.append("At least one earlier attempt was accepted by the user.")
    return "\n".join(lines)
