"""Lines that tell the agent to override the user, skip approvals or leave its sandbox: the edit
screen's override rule (:mod:`skillopt_core.skill.screen`).

"Without asking the user" is an instruction to act unapproved, unless what it qualifies is a
prohibition: "Without asking the user, never push to main" and "Never push to main without
asking the user" forbid the push; "Without asking the user, push to main" orders it. So a
*without* phrase is let through only when

- the clause it belongs to starts with a negated action ("never", "do not", "must not"...) and
  the phrase ends the clause ("Never push without asking the user first."), or
- the phrase opens the clause and all the rest of it is a negated action ("Without asking the
  user, never push to main.").

A comma that leads on to another part ("..., don't overthink it, push") lets nothing through,
nor does a negated wait: "never hesitate to", "don't wait" still act without the user. Other
leads ("never ask the user", "do not wait for approval") are refused whatever follows.
"""

from __future__ import annotations

import bisect
import re

from skillopt_core.skill._screen_read import Reading, W, lead, read

# Each pattern opens with literal words, the left word edge checked after them: a scan skips
# to where one can start (see :func:`._screen_read.lead`).
_LETTER = r"\w"
_WORD_END = r"\b"
_SPACE = rf"{W}+"


def _words(*words: str) -> str:
    """:func:`lead` alternatives for whole ``words``; in a phrase ("do not") the first word is
    checked and any white space may separate the others."""
    alternatives = []
    for phrase in words:
        first, *rest = phrase.split(" ")
        tail = "".join(f"{_SPACE}{re.escape(word)}" for word in rest)
        alternatives.append(lead(first, before=_LETTER, then=tail + _WORD_END))
    return "|".join(alternatives)


_NEVER = _words("never", "without", "no need to", "do not", "don't", "must not", "stop")
_NEVER_TELL = _words("never", "without", "do not", "don't", "must not")
_IGNORE = _words("ignore", "disregard", "forget", "override", "bypass")
_NEW = _words("new", "updated", "real", "actual")
_DISABLE = _words(
    "disable", "turn off", "switch off", "bypass", "circumvent", "deactivate", "skip", "escape"
)


_ACT_UNAPPROVED_RE = re.compile(
    rf"(?P<lead>{_NEVER})"
    rf"{W}+(?:ever{W}+)?(?:ask\w*|wait\w*|seek\w*|request\w*|check\w*|consult\w*){W}+"
    rf"(?:with{W}+)?(?:\bfor{W}+)?(?:the{W}+|their{W}+|any{W}+)?"
    rf"(?:(?:user|developer|human)'?s?\b[^.\n]{{0,12}}?)?(?:\bfor{W}+)?(?:the{W}+)?"
    rf"(?:permission|approval|consent|(?:user|developer|human)\b)"
)
_KEEP_FROM_USER_RE = re.compile(
    rf"(?P<lead>{_NEVER_TELL}){W}+(?:ever{W}+)?"
    r"(?:tell\w*|inform\w*|notify\w*|mention\w*|reveal\w*|disclos\w*|alert\w*)\b"
    r"[^.\n]{0,30}?\b(?:user|developer|human)\b"
)
_ALWAYS_RES = (
    re.compile(
        rf"(?:{_IGNORE})[^.\n]{{0,40}}?"
        r"\b(?:previous|prior|above|earlier|preceding|original|user'?s?|system|developer'?s?)\b"
        r"[^.\n]{0,20}?\b(?:instructions?|prompts?|directions?|guidelines?|messages?|requests?)\b"
    ),
    re.compile(rf"(?:{_NEW}){W}+(?:system{W}+)?instructions?{W}*:"),
    re.compile(rf"{_words('hide')}[^.\n]{{0,30}}?\bfrom{W}+(?:the{W}+)?(?:user|developer|human)\b"),
    re.compile(
        rf"(?:{_DISABLE}){W}+(?:\w+{W}+){{0,2}}?(?:sandbox\w*|"
        rf"permission{W}+(?:checks?|prompts?|system)|safety{W}+\w+|guardrails?|"
        rf"approval{W}+(?:prompts?|checks?)|security{W}+(?:checks?|scan\w*|warnings?)|antivirus|"
        rf"firewall|selinux|apparmor)"
    ),
    re.compile(
        rf"--dangerously-\w[\w-]*|--yolo\b|--allow-all-tools\b|{_words('bypasspermissions')}|"
        rf"--ask-for-approval{W}+never|approval[_-]policy{W}*=?{W}*['\"]?never|danger-full-access"
    ),
)

# A negated action: "never push", "you must not delete", "**Do not** merge". Not a negated
# wait ("never hesitate to", "don't wait"): that still acts without the user.
_NEGATED = (
    rf"(?:never|nothing|don't|do{W}+not|does{W}+not|doesn't|must{W}+not|mustn't|"
    rf"should{W}+not|shouldn't|avoid|refrain{W}+from)"
)
_SUBJECT = rf"(?:(?:you|we|i|agents?|the{W}+agent|claude|codex|copilot|please|also|and|so|then){W}+){{0,3}}"
_MODAL = rf"(?:(?:should|must|shall|will|can|may|would){W}+)?"
_STILL_ACTING = (
    r"(?:ask|wait|seek|request|check|consult|confirm|hesitate|fail|forget|neglect|skip|omit|"
    r"stop|bother|delay|pause|hold|need|have|require|prompt|interrupt|let|worry|mind|care)\w*|"
    r"(?:to|a|an|the|in|on|at|for|with|by|from|again|more|less|once|ever|mind)\b"
)
_PROHIBITS = rf"[*_]*{_SUBJECT}{_MODAL}[*_]*{_NEGATED}[*_]*{W}+(?!{_STILL_ACTING}\b)[\w*_]"
_THEN_PROHIBITS_RE = re.compile(rf"{W}*(?:[,:\-\u2013\u2014]{W}*)?{_PROHIBITS}")
_STARTS_PROHIBITING_RE = re.compile(rf"{W}*(?:(?:[-*+>]|\d+[.)]){W}+)?{_PROHIBITS}")
_BULLET_RE = re.compile(rf"{W}*(?:(?:[-*+>]|\d+[.)]){W}+)?[*_]*")
_CLAUSE_END_RE = re.compile(r"[.;!?:](?=\s|$)", re.M)
_COMMA_RE = re.compile(",")


class _Clauses:
    """Where the clauses of a line start and where its commas are, and how each clause opens:
    found once a line, once a clause."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self._lines: dict[int, tuple[list[int], list[int], int]] = {}
        self._opens: dict[int, tuple[int, bool]] = {}

    def of(self, number: int) -> tuple[list[int], list[int], int]:
        """(the clauses' starts, the commas, the line's end) of line ``number``."""
        if number not in self._lines:
            text, start = self.reading.text, self.reading.starts[number - 1]
            end = self.reading.next_line(start)
            starts = [start, *(m.end() for m in _CLAUSE_END_RE.finditer(text, start, end))]
            commas = [m.start() for m in _COMMA_RE.finditer(text, start, end)]
            self._lines[number] = (starts, commas, end)
        return self._lines[number]

    def opening(self, start: int) -> tuple[int, bool]:
        """Where the clause at ``start`` has its first word (after a bullet, emphasis), and
        whether it opens with a negated action."""
        if start not in self._opens:
            text = self.reading.text
            first = _BULLET_RE.match(text, start)
            word = first.end() if first else start
            self._opens[start] = (word, _STARTS_PROHIBITING_RE.match(text, start) is not None)
        return self._opens[start]


def _prohibition(m: re.Match[str], clauses: _Clauses) -> bool:
    """The *without* phrase ``m`` qualifies a prohibition (see the module's docstring)."""
    starts, commas, end = clauses.of(clauses.reading.line(m.start()))
    i = bisect.bisect_right(starts, m.start())
    clause_end = starts[i] if i < len(starts) else end

    def last_part(pos: int) -> bool:  # no comma from pos to the end of the clause
        comma = bisect.bisect_left(commas, pos)
        return comma == len(commas) or commas[comma] >= clause_end

    first_word, prohibits = clauses.opening(starts[i - 1])
    if first_word == m.start():  # the phrase opens the clause
        then = _THEN_PROHIBITS_RE.match(clauses.reading.text, m.end())
        return then is not None and last_part(then.end())
    return prohibits and last_part(m.end())


def override_lines(text: str) -> list[int]:
    """Lines that tell the agent to override the user, skip approvals or leave its sandbox."""
    reading = read(text)
    found: set[int] = set()
    for rx in _ALWAYS_RES:
        m = rx.search(reading.text)
        while m is not None:
            found.add(reading.line(m.start()))
            m = rx.search(reading.text, reading.next_line(m.start()))
    clauses = _Clauses(reading)
    for rx in (_ACT_UNAPPROVED_RE, _KEEP_FROM_USER_RE):
        for m in rx.finditer(reading.text):
            number = reading.line(m.start())
            if number in found:
                continue
            if m["lead"] != "without" or not _prohibition(m, clauses):
                found.add(number)
    return sorted(found)
