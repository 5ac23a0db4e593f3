"""The skill document: Markdown with YAML frontmatter and protected regions.

A protected region is delimited by HTML comments on their own lines::

    <!-- skillopt:protected NAME -->
    ...body...
    <!-- /skillopt:protected NAME -->

Step edits never touch a protected region or the frontmatter; only the slow update writes a
region, through :func:`set_protected`. HTML comments keep the markers invisible when the agent's
harness renders the skill, and a marker that is not alone on its line is ordinary text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_NAME = r"[A-Za-z0-9_.-]+"
_OPEN_RE = re.compile(
    rf"^[ \t]*<!--[ \t]*skillopt:protected[ \t]+({_NAME})[ \t]*-->[ \t]*\r?$", re.M
)
_CLOSE_TEMPLATE = r"^[ \t]*<!--[ \t]*/skillopt:protected[ \t]+{name}[ \t]*-->[ \t]*\r?$"
# A byte order mark (an editor's UTF-8 "with BOM") comes before the frontmatter, and belongs to it.
_FRONTMATTER_RE = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.S)

#: Any text containing this is refused as edit content: it could forge or break a region.
MARKER_TOKEN = "skillopt:protected"


@dataclass(frozen=True)
class Region:
    """A protected block. ``start``/``end`` span the marker lines (end includes the closing newline);
    ``body_start``/``body_end`` span the text between the markers. An unclosed region runs to the
    end of the document so that a damaged marker fails safe (more is protected, never less)."""

    name: str
    start: int
    end: int
    body_start: int = 0
    body_end: int = 0

    @property
    def closed(self) -> bool:
        return self.body_end < self.end


def split_frontmatter(text: str) -> tuple[str, str]:
    """Split ``text`` into (frontmatter including its ``---`` lines and any byte order mark
    before them, rest); ``a + b == text``."""
    match = _FRONTMATTER_RE.match(text)
    if match is None:
        return "", text
    return text[: match.end()], text[match.end() :]


def strip_frontmatter(text: str) -> str:
    """The document without its YAML frontmatter (what the agent reads as instructions)."""
    return split_frontmatter(text)[1]


def _line_end(text: str, pos: int) -> int:
    """Offset just past the newline of the line containing ``pos`` (or the end of ``text``)."""
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline + 1


def protected_regions(text: str) -> list[Region]:
    """All protected regions in document order (markers inside the frontmatter are ignored)."""
    regions: list[Region] = []
    pos = len(split_frontmatter(text)[0])
    while True:
        opening = _OPEN_RE.search(text, pos)
        if opening is None:
            return regions
        name = opening.group(1)
        body_start = _line_end(text, opening.start())
        close_re = re.compile(_CLOSE_TEMPLATE.format(name=re.escape(name)), re.M)
        closing = close_re.search(text, body_start)
        if closing is None:
            regions.append(Region(name, opening.start(), len(text), body_start, len(text)))
            return regions
        end = _line_end(text, closing.start())
        regions.append(Region(name, opening.start(), end, body_start, closing.start()))
        pos = end


def editable_chars(text: str) -> int:
    """How long the text the optimizer may edit is: all but the frontmatter and the protected
    regions (what a size budget, ``GatePolicy.max_chars``, bounds)."""
    return len(text) - sum(end - start for start, end in protected_spans(text))


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans no step edit may touch: the frontmatter (if any) and every protected region."""
    spans = [(r.start, r.end) for r in protected_regions(text)]
    frontmatter = split_frontmatter(text)[0]
    if frontmatter:
        spans.insert(0, (0, len(frontmatter)))
    return spans


def editable_spans(text: str) -> list[tuple[int, int]]:
    """Non-empty ``(start, end)`` spans outside the frontmatter and protected regions."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in [*protected_spans(text), (len(text), len(text))]:
        if start > pos:
            spans.append((pos, start))
        pos = max(pos, end)
    return spans


def protected_signature(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Frontmatter plus each region's exact text: equal signatures mean nothing protected moved."""
    regions = tuple((r.name, text[r.start : r.end]) for r in protected_regions(text))
    return split_frontmatter(text)[0], regions


def get_protected(text: str, name: str) -> str | None:
    """Body of the first region called ``name`` (without its final newline), or ``None``."""
    for region in protected_regions(text):
        if region.name == name:
            body = text[region.body_start : region.body_end]
            return body[:-1] if body.endswith("\n") else body
    return None


def set_protected(text: str, name: str, body: str) -> str:
    """Replace the body of region ``name`` or append a new region at the end of the document.

    Trailing newlines of ``body`` are normalised away so ``get_protected`` round-trips. An
    unclosed region gets its closing marker back.
    """
    if re.fullmatch(_NAME, name) is None:
        raise ValueError(f"protected region name {name!r} must match {_NAME}")
    if MARKER_TOKEN in body:
        raise ValueError("a protected region body may not contain protected-region markers")
    body = body.rstrip("\r\n")
    inner = f"{body}\n" if body else ""
    close = f"<!-- /skillopt:protected {name} -->\n"
    for region in protected_regions(text):
        if region.name == name:
            if region.closed:
                return text[: region.body_start] + inner + text[region.body_end :]
            head = text[: region.body_start]
            head = head if head.endswith("\n") else head + "\n"
            return head + inner + close
    block = f"<!-- skillopt:protected {name} -->\n{inner}{close}"
    head = text.rstrip("\r\n")
    return f"{head}\n\n{block}" if head else block


def skill_hash(text: str) -> str:
    """Short content hash (sha256 hex, 16 chars): the cache key for evaluations of a skill."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
