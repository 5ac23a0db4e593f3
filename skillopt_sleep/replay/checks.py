"""Rule checks on a replayed answer: pure functions, one verdict per check.

A failed check's reason ends with ``[needs: GUIDANCE]``: the procedure that would have passed it,
stated as an instruction. Reflection reads it (a real optimizer as a hint, the simulated one as its
diagnosis), so the judge's feedback points at a fix rather than only at a symptom.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.records import Check

_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+|\*\*)(.+?)\**\s*:?\s*$", re.M)


@dataclass(frozen=True)
class CheckResult:
    check: Check
    passed: bool
    reason: str = ""


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


def _compile(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def run_check(check: Check, answer: str, tools: Sequence[str] = ()) -> CheckResult:
    kind, value = check.kind, check.value
    lowered = answer.lower()
    if kind == "contains":
        passed = value.lower() in lowered
        why = f"the answer lacks {value!r}"
    elif kind == "not_contains":
        passed = value.lower() not in lowered
        why = f"the answer contains {value!r}"
    elif kind in ("regex", "not_regex"):
        pattern = _compile(value)
        if pattern is None:
            return CheckResult(check, True, f"skipped: invalid pattern {value!r}")
        found = pattern.search(answer) is not None
        passed = found if kind == "regex" else not found
        why = f"the answer {'does not match' if kind == 'regex' else 'matches'} /{value}/"
    elif kind == "section_present":
        titles = [m.group(1).strip().lower() for m in _HEADING.finditer(answer)]
        passed = any(value.lower() in t for t in titles)
        why = f"no {value!r} section"
    elif kind == "max_chars":
        limit = int(value) if value.isdigit() else 0
        passed = limit <= 0 or len(answer) <= limit
        why = f"the answer has {len(answer)} characters (limit {value})"
    elif kind == "tool_called":
        passed = value.lower() in {t.lower() for t in tools} or value.lower() in lowered
        why = f"the {value} tool was not used"
    else:
        return CheckResult(check, True, f"skipped: unknown check kind {kind!r}")
    if passed:
        return CheckResult(check, True)
    return CheckResult(check, False, f"{why} [needs: {guidance_for(check)}]")


def run_checks(
    checks: Sequence[Check], answer: str, tools: Sequence[str] = ()
) -> tuple[CheckResult, ...]:
    return tuple(run_check(c, answer, tools) for c in checks)
