"""Suggest the known name a typo was probably meant to be ("did you mean ...?")."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, or None when nothing is close enough."""
    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(name: str, known: Iterable[str], *, template: str = "{!r}") -> str:
    """``" (did you mean 'x'?)"`` for a close known name, else an empty string."""
    match = closest(name, known)
    return f" (did you mean {template.format(match)}?)" if match else ""
