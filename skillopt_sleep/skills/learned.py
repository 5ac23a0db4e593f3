"""The learned region of a user's skill or memory file, and the training view around it.

The engine owns exactly one block of a live file::

    <!-- skillopt-sleep:learned -->
    ...what the nights learned...
    <!-- /skillopt-sleep:learned -->

Everything else (frontmatter, the user's own text, even its line endings) is preserved byte for
byte. For training, the optimizer sees the whole document with the user's text wrapped in a
protected region, so it can read it but edits land only in the learned body.
"""

from __future__ import annotations

import re

from skillopt_core.skill.document import (
    MARKER_TOKEN,
    protected_regions,
    split_frontmatter,
)

OPEN = "<!-- skillopt-sleep:learned -->"
CLOSE = "<!-- /skillopt-sleep:learned -->"
USER_REGION = "user-text"
_OPEN_RE = re.compile(r"^[ \t]*<!--[ \t]*skillopt-sleep:learned[ \t]*-->[ \t]*\r?\n?", re.M)
_CLOSE_RE = re.compile(r"^[ \t]*<!--[ \t]*/skillopt-sleep:learned[ \t]*-->[ \t]*\r?\n?", re.M)


def _frontmatter(text: str) -> str:
    """The file's frontmatter, unless what looks like one holds the learned block: a file that
    opens with a ``---`` rule and has another ``---`` line after the block has none."""
    frontmatter = split_frontmatter(text)[0]
    return "" if _OPEN_RE.search(frontmatter) else frontmatter


def _span(text: str) -> tuple[int, int, int, int] | None:
    """(block start, body start, body end, block end) of the learned region, if present."""
    opening = _OPEN_RE.search(text, len(_frontmatter(text)))
    if opening is None:
        return None
    closing = _CLOSE_RE.search(text, opening.end())
    if closing is None:
        return opening.start(), opening.end(), len(text), len(text)
    return opening.start(), opening.end(), closing.start(), closing.end()


def learned_body(text: str) -> str:
    span = _span(text)
    return "" if span is None else text[span[1] : span[2]]


def with_learned(text: str, body: str) -> str:
    """``text`` with its learned region's body set to ``body`` (appended when absent).

    Bytes outside the region are untouched; an empty body removes nothing the user wrote.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    inner = body.strip("\r\n")
    inner = inner.replace("\r\n", "\n").replace("\n", newline)
    block_body = f"{inner}{newline}" if inner else ""
    span = _span(text)
    if span is not None:
        _, body_start, body_end, end = span
        closing = text[body_end:end] if end > body_end else f"{CLOSE}{newline}"
        return text[:body_start] + block_body + closing + text[end:]
    if not inner:
        return text
    block = f"{OPEN}{newline}{block_body}{CLOSE}{newline}"
    if not text:
        return block
    separator = (
        ""
        if text.endswith(("\n\n", "\r\n\r\n"))
        else (newline if text.endswith("\n") else newline * 2)
    )
    return f"{text}{separator}{block}"


def training_view(text: str) -> str:
    """Frontmatter + the user's text as a protected region + the learned body (editable)."""
    frontmatter = _frontmatter(text)
    rest = text[len(frontmatter) :]
    span = _span(text)
    if span is None:
        user, body = rest, ""
    else:
        start, body_start, body_end, end = span
        offset = len(frontmatter)
        user = rest[: start - offset] + rest[end - offset :]
        body = text[body_start:body_end]
    user = user.replace(MARKER_TOKEN, "skillopt-protected")
    parts = [frontmatter]
    if user.strip():
        parts.append(
            f"<!-- skillopt:protected {USER_REGION} -->\n{user.rstrip()}\n"
            f"<!-- /skillopt:protected {USER_REGION} -->\n\n"
        )
    parts.append(body)
    return "".join(parts)


def body_from_view(view: str) -> str:
    """The learned body a trained view implies: everything but the frontmatter and the user
    region (the optimizer may have added text on either side of it)."""
    frontmatter, _ = split_frontmatter(view)
    for region in protected_regions(view):
        if region.name == USER_REGION:
            before = view[len(frontmatter) : region.start].strip("\r\n")
            after = view[region.end :].strip("\r\n")
            body = "\n".join(part for part in (before, after) if part)
            return f"{body}\n" if body else ""
    return view[len(frontmatter) :]
