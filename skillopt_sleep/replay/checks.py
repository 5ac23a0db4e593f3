"""Rule checks on a replayed answer: pure functions, one verdict per check.

A failed check's reason ends with ``[needs: GUIDANCE]``: the procedure that would have passed it,
stated as an instruction. Reflection reads it (a real optimizer as a hint, the simulated one as its
diagnosis), so the judge's feedback points at a fix rather than only at a symptom.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from skillopt_core.redaction import PLACEHOLDER_RE
from skillopt_sleep.records import Check
from skillopt_sleep.replay.patterns import bounded_search, regex_problem
from skillopt_sleep.replay.text import as_text, fold, for_pattern, heading_titles

_TEXT_KINDS = ("contains", "not_contains", "section_present", "tool_called")
_KINDS = (*_TEXT_KINDS, "regex", "not_regex", "max_chars")


@dataclass(frozen=True)
class CheckResult:
    check: Check
    passed: bool
    reason: str = ""
    skipped: bool = False  # the check could not judge this answer: it counts for neither side


def guidance_for(check: Check) -> str:
    """The instruction that satisfies ``check`` (its description when it names the value)."""
    value, description = check.value.strip(), " ".join(check.description.split())
    if check.kind == "contains":
        base = f"Include {value!r} in the answer"
    elif check.kind == "not_contains":
        base = f"Never write {value!r}"
    elif check.kind == "section_present":
        base = f"Always include a {value!r} section heading"
    elif check.kind == "max_chars":
        base = f"Keep the answer under {value} characters"
    elif check.kind == "tool_called":
        base = f"Use the {value} tool"
    else:
        base = f"Follow the required format ({description or value})"
        return base
    return f"{base}: {description}" if description else base


def unusable_reason(check: Check) -> str:
    """Why ``check`` cannot judge any answer ("" when it can): an empty or whitespace-only value
    (it would pass or fail every answer), a redaction placeholder (it asks for a secret the model
    never saw), a limit that is not a positive number, or a pattern that is invalid or shaped to
    backtrack catastrophically."""
    kind, value = check.kind, check.value
    if kind not in _KINDS:
        return f"unknown check kind {kind!r}"
    if PLACEHOLDER_RE.search(value) or PLACEHOLDER_RE.search(value.replace("\\", "")):
        return "its value is a redaction placeholder"
    if kind in ("regex", "not_regex"):
        if not value.strip():
            return "its pattern is empty"
        problem = regex_problem(value)
        return f"the pattern is refused: {problem}" if problem else ""
    if kind == "max_chars":
        digits = value.strip()
        return "" if digits.isascii() and digits.isdigit() and int(digits) > 0 else "no limit"
    if kind in _TEXT_KINDS and not fold(value):
        return "its value is empty"
    return ""


def _contradicts(wanted: Check, banned: Check, folded: Mapping[str, str]) -> bool:
    """Every answer that passes ``wanted`` fails ``banned`` (``folded``: each value folded)."""
    if banned.kind == "not_contains" and wanted.kind in ("contains", "section_present"):
        return folded[banned.value] in folded[wanted.value]
    if banned.kind == "not_regex" and wanted.kind == "regex":
        return banned.value == wanted.value
    return False


def usable_checks(checks: Sequence[Check]) -> tuple[Check, ...]:
    """The checks that can judge an answer: without unusable ones, and without both sides of a
    pair no answer can satisfy (``contains 'session cookie'`` with ``not_contains 'cookie'``,
    from two corrections that disagree). The same whatever the order of ``checks``."""
    return tuple(c for c, why in zip(checks, _skips(checks), strict=True) if not why)


def _skips(checks: Sequence[Check]) -> list[str]:
    """Why each check is skipped ("" for the ones that judge)."""
    whys = [unusable_reason(c) for c in checks]
    usable = [i for i, why in enumerate(whys) if not why]
    folded = {checks[i].value: fold(checks[i].value) for i in usable}
    for i in usable:
        for j in usable:
            wanted, banned = checks[i], checks[j]
            if i != j and _contradicts(wanted, banned, folded):
                whys[i] = whys[i] or f"it contradicts {banned.kind} {banned.value!r}"
                whys[j] = whys[j] or f"it contradicts {wanted.kind} {wanted.value!r}"
    return whys


class _Answer:
    """One answer in the forms the checks read, each made once and only when a check needs it."""

    def __init__(self, answer: object) -> None:
        self.raw = as_text(answer)

    @cached_property
    def folded(self) -> str:
        return fold(self.raw)

    @cached_property
    def pattern_text(self) -> str:
        return for_pattern(self.raw)

    @cached_property
    def titles(self) -> tuple[str, ...]:
        return tuple(heading_titles(self.raw))


def run_check(check: Check, answer: object, tools: Sequence[str] = ()) -> CheckResult:
    """The verdict of one check on ``answer`` (an unusable check is skipped: passed, and marked)."""
    why = unusable_reason(check)
    if why:
        return CheckResult(check, True, f"skipped: {why}", skipped=True)
    return _verdict(check, _Answer(answer), tools)


def _verdict(check: Check, answer: _Answer, tools: Sequence[str]) -> CheckResult:
    kind, value = check.kind, check.value
    wanted = fold(value)
    if kind == "contains":
        passed = wanted in answer.folded
        why = f"the answer lacks {value!r}"
    elif kind == "not_contains":
        passed = wanted not in answer.folded
        why = f"the answer contains {value!r}"
    elif kind in ("regex", "not_regex"):
        found, problem = bounded_search(unicodedata.normalize("NFC", value), answer.pattern_text)
        if found is None:  # this answer alone could not be searched (the pattern was screened):
            return CheckResult(check, False, f"not shown within the limit: {problem}")  # fails
        passed = found if kind == "regex" else not found
        why = f"the answer {'does not match' if kind == 'regex' else 'matches'} /{value}/"
    elif kind == "section_present":
        passed = any(wanted in t for t in answer.titles)
        why = f"no {value!r} section"
    elif kind == "max_chars":
        limit = int(value.strip())
        length = len(answer.pattern_text.strip())
        passed = length <= limit
        why = f"the answer has {length} characters (limit {limit})"
    elif kind == "tool_called":
        passed = wanted in {fold(t) for t in tools} or wanted in answer.folded
        why = f"the {value} tool was not used"
    else:  # pragma: no cover - unusable_reason refuses every other kind first
        return CheckResult(check, True, f"skipped: unknown check kind {kind!r}", True)
    if passed:
        return CheckResult(check, True)
    return CheckResult(check, False, f"{why} [needs: {guidance_for(check)}]")


def run_checks(
    checks: Sequence[Check], answer: object, tools: Sequence[str] = ()
) -> tuple[CheckResult, ...]:
    """One verdict per check, in order; unusable and contradictory checks are skipped."""
    prepared = _Answer(answer)
    return tuple(
        CheckResult(c, True, f"skipped: {why}", skipped=True)
        if why
        else _verdict(c, prepared, tools)
        for c, why in zip(checks, _skips(checks), strict=True)
    )
