"""Apply bounded add / delete / replace edits to a skill document.

Every edit is applied to the result of the previous one and either succeeds completely or leaves
the text untouched, with the reason in the report. Whatever an edit does, the frontmatter and the
protected regions must come out byte-identical: each candidate text is checked against that
invariant before it is accepted, so no clever anchor or content can break it. Nor is a line the
edit screen objects to (:mod:`skillopt_core.skill.screen`) ever written, whoever calls: each
edit's written lines are screened whole, so content that completes a line already in the skill
(``| sh`` after its ``curl`` command) is read with it, and then the learned text it leaves is
screened as one (:func:`~skillopt_core.skill.screen.screen_change`): a run of what another edit
downloads, or the ``| sh`` below another edit's ``curl ... \\`` line, is the new edit's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skillopt_core.records import ApplyReport, Edit, EditOp, EditOutcome
from skillopt_core.skill._contradiction import CONTRADICTION_PREFIX as CONTRADICTION_PREFIX
from skillopt_core.skill._contradiction import contradiction, contradiction_refusal
from skillopt_core.skill.anchors import EXACT, AnchorMatch, find_anchor
from skillopt_core.skill.document import (
    MARKER_TOKEN,
    editable_spans,
    protected_regions,
    protected_signature,
    split_frontmatter,
)
from skillopt_core.skill.screen import ScreenContext, refusal, screen_change

#: An ``add`` anchor meaning "at the end of the editable region" (as does an empty anchor).
END_ANCHOR = "END"

_LIST_RE = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]+\S")
_HEADING_RE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_BULLET_RE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_BARE_MARKER_RE = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])?[ \t]*")


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    """Offset just past the newline of the line containing ``pos`` (or the end of ``text``)."""
    newline = text.find("\n", pos)
    return len(text) if newline < 0 else newline + 1


def _blank(line: str) -> bool:
    return not line.strip()


def _is_list(line: str) -> bool:
    return _LIST_RE.match(line) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _content_lines(content: str) -> list[str]:
    """Content as lines, without surrounding blank lines or trailing spaces."""
    lines = [line.rstrip() for line in re.split(r"\r?\n", content)]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _line_key(line: str) -> str:
    """A line compared for duplication: bullet marker dropped, whitespace folded."""
    return " ".join(_BULLET_RE.sub("", line, count=1).split())


def _already_present(text: str, lines: list[str]) -> bool:
    """Whether ``lines`` already occur as consecutive whole lines (blank lines ignored), which
    is what the ``add`` would create. Substring matching would wrongly veto short content."""
    wanted = [_line_key(line) for line in lines if line.strip()]
    have = [_line_key(line) for line in text.splitlines() if line.strip()]
    return any(have[i : i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1))


def _insert_block(text: str, pos: int, lines: list[str], nl: str) -> str:
    """Insert ``lines`` at line boundary ``pos`` as their own paragraph, or as list items when
    both the block and its neighbour are list items (so a bullet joins its list)."""
    before, after = text[:pos], text[pos:]
    prefix = nl if before and not before.endswith("\n") else ""
    end = len(before) - 1 if before.endswith("\n") else len(before)
    prev = before[_line_start(before, end) : end]
    nxt = after.split("\n", 1)[0] if after else ""
    as_list = _is_list(lines[0])
    if before and not _blank(prev) and not (as_list and (_is_list(prev) or _indent(prev) > 0)):
        prefix += nl
    suffix = nl
    if after and not _blank(nxt) and not (as_list and _is_list(nxt)):
        suffix += nl
    return before + prefix + nl.join(lines) + suffix + after


def _span_of(text: str, match: AnchorMatch) -> tuple[int, int]:
    for lo, hi in editable_spans(text):
        if lo <= match.start and match.end <= hi:
            return lo, hi
    raise AssertionError("find_anchor returned a match outside the editable spans")


def _after_anchor(text: str, match: AnchorMatch, as_list: bool) -> int:
    """Where an ``add`` goes: after the anchor's heading (and its blank line), after its list
    item (and nested lines) when adding a list item, otherwise after its paragraph."""
    _, hi = _span_of(text, match)
    last = max(match.start, match.end - 1)
    line = text[_line_start(text, last) : _line_end(text, last)]
    pos = min(_line_end(text, last), hi)

    def line_at(p: int) -> str:
        return text[p : _line_end(text, p)]

    if _HEADING_RE.match(line):
        while pos < hi and _blank(line_at(pos)):
            pos = _line_end(text, pos)
    elif as_list and _is_list(line):
        while pos < hi and not _blank(line_at(pos)) and _indent(line_at(pos)) > _indent(line):
            pos = _line_end(text, pos)
    else:
        while pos < hi and not _blank(line_at(pos)):
            pos = _line_end(text, pos)
    return min(pos, hi)


def _end_position(text: str) -> int:
    """Just after the last non-blank editable line that precedes the trailing protected regions."""
    limit = len(text)
    for region in reversed(protected_regions(text)):
        if text[region.end : limit].strip():
            break
        limit = region.start
    floor = len(split_frontmatter(text)[0])
    floor = min(floor, limit)
    last = floor + len(text[floor:limit].rstrip())
    return floor if last == floor else min(_line_end(text, last - 1), limit)


def _delete(text: str, start: int, end: int) -> str:
    """Remove ``[start, end)``; a line left empty (or holding only its bullet) goes too, and so
    does the blank line the removal would double."""
    ls, le = _line_start(text, start), _line_end(text, max(start, end - 1))
    rest = text[ls:start] + text[end:le]
    if _BARE_MARKER_RE.fullmatch(rest.rstrip("\r\n")) is None:
        out = text[:start] + text[end:]
        if 0 < start < len(out) and out[start - 1] == " " and out[start] in " .,;:!?":
            out = out[: start - 1] + out[start:]
        return out
    out = text[:ls] + text[le:]
    nxt = out[ls : _line_end(out, ls)] if ls < len(out) else None
    prev_start = _line_start(out, ls - 1) if ls > 0 else -1
    prev_blank = prev_start >= 0 and _blank(out[prev_start:ls])
    if nxt is not None and _blank(nxt) and (ls == 0 or prev_blank):
        return out[:ls] + out[ls + len(nxt) :]
    if nxt is None and prev_blank:
        return out[:prev_start]
    return out


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _apply_one(text: str, edit: Edit) -> tuple[str, str]:
    """The new text and an empty reason, or the unchanged text and why the edit was skipped."""
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = _content_lines(edit.content)
    if edit.op in (EditOp.ADD, EditOp.REPLACE):
        if not lines:
            return text, "empty content"
        if MARKER_TOKEN in edit.content:
            return text, "content contains a protected-region marker"
    if edit.op is EditOp.ADD:
        if _already_present(text, lines):
            return text, "duplicate: content already in the document"
        if edit.anchor.strip() in ("", END_ANCHOR):
            return _insert_block(text, _end_position(text), lines, nl), ""
    match = find_anchor(text, edit.anchor)
    if not match.found:
        return text, match.reason
    if edit.op is EditOp.ADD:
        where = _after_anchor(text, match, _is_list(lines[0]))
        new = _insert_block(text, where, lines, nl)
    else:
        # Surrounding whitespace of the anchor is layout, not meaning: keeping it preserves the
        # line structure (a marker stays on its own line, paragraphs stay apart).
        start, end = _trim(text, match.start, match.end)
        if edit.op is EditOp.DELETE:
            new = _delete(text, start, end)
        else:
            new = text[:start] + nl.join(lines) + text[end:]
    if new == text:
        return text, "no change"
    return new, "" if match.tier == EXACT else f"anchor matched {match.tier}"


def apply_edits(
    text: str, edits: Sequence[Edit], screen: ScreenContext | None = None
) -> ApplyReport:
    """Apply ``edits`` in order; the report lists every edit as applied or skipped with a reason.

    An edit whose written lines, or the learned text it leaves, the edit screen objects to
    (:func:`~skillopt_core.skill.screen.screen_change`) is skipped, its reason starting with
    :data:`~skillopt_core.skill.screen.REFUSED_PREFIX`; ``screen`` says which hosts the user
    named (without it, the host rule is off). An edit that writes a line saying the opposite of
    a learned line of ``text`` it keeps is skipped too, its reason starting with
    :data:`CONTRADICTION_PREFIX` and naming that line
    (:func:`~skillopt_core.skill._contradiction.contradiction_refusal`); one that says the
    opposite of a line an earlier edit of ``edits`` wrote is skipped with another reason, as
    that line may yet be refused (the step remembers only the first kind as refused)."""
    outcomes: list[EditOutcome] = []
    base = text
    for edit in edits:
        new, reason = _apply_one(text, edit)
        findings = screen_change(text, new, screen)
        if new == text:
            outcomes.append(EditOutcome(edit, False, reason or "no change"))
        elif protected_signature(new) != protected_signature(text):
            outcomes.append(EditOutcome(edit, False, "edit would alter a protected region"))
        elif findings:
            outcomes.append(EditOutcome(edit, False, refusal(findings)))
        elif clash := contradiction_refusal(base, new):
            outcomes.append(EditOutcome(edit, False, clash))
        elif found := contradiction(text, new):
            said = f"skipped: {found[0]!r} says the opposite of {found[1]!r}, an earlier edit's"
            outcomes.append(EditOutcome(edit, False, said))
        else:
            text = new
            outcomes.append(EditOutcome(edit, True, reason or "applied"))
    return ApplyReport(text=text, outcomes=tuple(outcomes))
