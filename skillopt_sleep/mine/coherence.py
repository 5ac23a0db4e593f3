"""A family whose members' evidence contradicts itself is not one task.

If one member's correction asked for a phrase and another's forbade the same phrase (``contains``
vs ``not_contains``, ``regex`` vs ``not_regex`` of one pattern), no answer can pass the family's
judge: the members were asking for different things, so the clustering merged two tasks. Such a
family is withheld from replay (reported in the night's stats) rather than trained against a
judge that is wrong for some of its members.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillopt_sleep.records import Check

_OPPOSITE = {"contains": "not_contains", "regex": "not_regex"}


def _clash(wanted: str, banned: str, literal: bool) -> bool:
    a, b = wanted.strip().lower(), banned.strip().lower()
    return bool(a and b) and (a == b or (literal and (a in b or b in a)))


def contradictions(checks: Sequence[Check]) -> list[tuple[Check, Check]]:
    """Pairs of checks no single answer can both pass."""
    found = []
    for want in checks:
        opposite = _OPPOSITE.get(want.kind)
        if opposite is None:
            continue
        for ban in checks:
            if ban.kind == opposite and _clash(want.value, ban.value, want.kind == "contains"):
                found.append((want, ban))
    return found
