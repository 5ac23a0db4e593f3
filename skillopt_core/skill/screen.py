"""Screen what an edit would write into a skill before it is tried.

The skill document is read into every later session of the agent, and the text an optimizer
learns from is partly written by others (tool output, a dependency's README, a pasted issue, a
model's answer). A compromised or fooled optimizer can therefore propose an instruction the user
never gave: pipe a download into a shell, send ``.env`` somewhere, skip the user's approval. The
gate only asks whether a candidate scores better, so such an edit must be stopped before it.

:func:`screen_text` runs every rule of :data:`RULES` over a text and returns its
:class:`Finding`\\ s (empty: nothing to object to); :func:`screen_edit` screens the text an edit
would write; :func:`screen_change` screens an applied edit, what it wrote and the skill it leaves
(a download in one edit or in the user's own text, its run in another); :func:`split_screened`
sorts a step's proposals, and :func:`refused_edit` is how a refused one is remembered. Matching
reads a text as the agent would understand it: invisible characters dropped, compatibility forms
folded (full-width letters), case ignored, continued shell lines joined (:mod:`._screen_read`).
The download rule lives in :mod:`._screen_exec`, the host rule in :mod:`._screen_hosts`, the
secret rules in :mod:`._screen_commands`, the override rule in :mod:`._screen_override` and the
invisible-characters rule in :mod:`._screen_hidden`. The rules aim at what no ordinary procedure
needs, so ``pytest -q``, ``curl -fsSL`` on a health endpoint, a URL the skill or the user's
requests already name, a prohibition ("never push without asking the user") or a default
password in a test command (``DB_PASSWORD=postgres``) pass. Every rule is linear in the text:
its patterns stay on one line and nest no unbounded repetition.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import groupby, islice

from skillopt_core.records import Edit, EditOp
from skillopt_core.redaction import redact_many
from skillopt_core.skill._screen_commands import placeholder_credentials_masked, secret_leaks
from skillopt_core.skill._screen_exec import download_runs
from skillopt_core.skill._screen_hidden import invisible_lines
from skillopt_core.skill._screen_hosts import (
    LOOPBACK_HOSTS,
    host_offsets,
    hosts_in,
    is_loopback,
    known_hosts,
)
from skillopt_core.skill._screen_override import override_lines
from skillopt_core.skill._screen_read import W, invisible, matching_lines, read
from skillopt_core.skill.document import protected_regions, split_frontmatter

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_CONTENT_CHARS",
    "MAX_CONTENT_LINES",
    "REFUSED_PREFIX",
    "RULES",
    "Finding",
    "Rule",
    "ScreenContext",
    "hosts_in",
    "known_hosts",
    "refusal",
    "refused_edit",
    "screen_change",
    "screen_edit",
    "screen_text",
    "split_screened",
    "summary",
    "without_invisible",
]

MAX_CONTENT_CHARS = 2000
"""The most an edit may write: a procedure is a few lines, never a document of its own."""
MAX_CONTENT_LINES = 40


@dataclass(frozen=True)
class Finding:
    """Why a text may not enter a skill: the rule's ``kind``, the 1-based ``line`` of the text
    (0: the text as a whole) and a ``reason`` for the user."""

    kind: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{self.kind} ({where}{self.reason})"


@dataclass(frozen=True)
class ScreenContext:
    """What a screen knows besides the text: the hosts the user's own requests and the current
    skill name (``None``: not known, so the host rule is off), and the size bounds."""

    hosts: frozenset[str] | None = None
    max_chars: int = MAX_CONTENT_CHARS
    max_lines: int = MAX_CONTENT_LINES


Hit = tuple[int, str]  # (line, reason)


@dataclass(frozen=True)
class Rule:
    kind: str
    check: Callable[[str, ScreenContext], Iterable[Hit]]


def _per_line(
    reason: str, *patterns: re.Pattern[str]
) -> Callable[[str, ScreenContext], Iterator[Hit]]:
    """A rule that objects to each line where one of ``patterns`` (which stay on one line)
    matches."""

    def check(text: str, ctx: ScreenContext) -> Iterator[Hit]:
        reading = read(text)
        found = [matching_lines(reading, p) for p in patterns]
        return ((n, reason) for n, _ in groupby(heapq.merge(*found)))

    return check


def _downloads_run(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    reason = "runs code it downloads (or decodes) without the user seeing it first"
    return ((n, reason) for n in download_runs(text))


def _secrets_out(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    reason = "tells the agent to send or show secrets (keys, tokens, .env, ssh)"
    return ((n, reason) for n in secret_leaks(text))


def _unknown_hosts(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    if ctx.hosts is None:
        return
    new: dict[int, set[str]] = {}
    for reading, offset, host in host_offsets(text):
        if host not in ctx.hosts and not is_loopback(host):
            new.setdefault(reading.line(offset), set()).add(host)
    for number in sorted(new):
        hosts = ", ".join(sorted(new[number]))
        yield number, f"names a host neither the skill nor the user's requests name: {hosts}"


def _overrides(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    reason = "tells the agent to override the user, skip approvals or leave its sandbox"
    return ((n, reason) for n in override_lines(text))


# --- what the text hides or forges ------------------------------------------------------------


def _invisible_chars(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    for number, codes in invisible_lines(text):
        yield number, f"holds invisible or direction-changing characters: {', '.join(codes)}"


_MARKER_RE = re.compile(rf"skillopt(?:-sleep)?{W}*:{W}*(?:protected|learned|engine)")
_forged_markers = _per_line(
    "holds a skillopt marker: it could forge or end a protected or learned block", _MARKER_RE
)
_hidden_markup = _per_line(
    "holds text a rendered view hides (an HTML comment, a hidden element, a link-label comment)",
    re.compile(rf"<!--|display{W}*:{W}*none|<{W}*(?:script|iframe|object)\b"),
    re.compile(rf"^{W}*\[[^\]\n]*\]{W}*:{W}*(?:#|<>)", re.M),
)


def _placeholders(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    """Redaction placeholders, and what the redaction rules take for a secret (all lines in one
    scan); a well-known placeholder or default value (``DB_PASSWORD=postgres``) is none."""
    quoted: set[int] = set()
    if "[redacted:" in text.casefold():
        quoted = {n for n, ln in enumerate(text.split("\n"), 1) if "[redacted:" in ln.casefold()}
    lines = placeholder_credentials_masked(text).replace("\x00", "").split("\n")
    for number, (line, redacted) in enumerate(zip(lines, redact_many(lines), strict=True), 1):
        if number in quoted:
            yield number, "holds a redaction placeholder: a secret was cut from what it quotes"
        elif redacted != line:
            yield number, "holds what looks like a secret (key, token or password)"


def _size(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    lines = text.count("\n") + 1
    if len(text) > ctx.max_chars or lines > ctx.max_lines:
        yield (
            0,
            f"is {len(text)} characters in {lines} lines, over the edit limit of "
            f"{ctx.max_chars} characters or {ctx.max_lines} lines",
        )


RULES: tuple[Rule, ...] = (
    Rule("download-exec", _downloads_run),
    Rule("secret-exfiltration", _secrets_out),
    Rule("override", _overrides),
    Rule("unknown-host", _unknown_hosts),
    Rule("invisible-characters", _invisible_chars),
    Rule("forged-marker", _forged_markers),
    Rule("hidden-text", _hidden_markup),
    Rule("secret", _placeholders),
    Rule("oversize", _size),
)
"""Every rule, in the order findings are listed. Each is a pure function of (text, context)."""


_MAX_FINDINGS_PER_RULE = 100
"""A rule names at most this many lines of one text (an edit has 40): one refuses it, and a
hostile text of a million short lines would otherwise cost a finding each."""


def screen_text(text: str, ctx: ScreenContext | None = None) -> tuple[Finding, ...]:
    """Every finding of every rule on ``text`` (empty: nothing to object to), at most
    :data:`_MAX_FINDINGS_PER_RULE` lines for a rule."""
    context = ctx or ScreenContext()
    return tuple(
        Finding(rule.kind, line, reason)
        for rule in RULES
        for line, reason in islice(rule.check(text, context), _MAX_FINDINGS_PER_RULE)
    )


def screen_edit(edit: Edit, ctx: ScreenContext | None = None) -> tuple[Finding, ...]:
    """The findings on what ``edit`` would write (a delete writes nothing)."""
    if edit.op is EditOp.DELETE:
        return ()
    return screen_text(edit.content, ctx)


_WITH_THE_REST = "read with the other lines of the skill"


def screen_change(before: str, after: str, ctx: ScreenContext | None = None) -> tuple[Finding, ...]:
    """The findings on changing a skill from ``before`` to ``after`` (one edit applied).

    First the lines the edit wrote, whole, alone: every rule, the size bound included (a line
    the content completes is read with what it completes). If they pass, ``after`` as the agent
    follows it (all but the frontmatter and the protected regions' marker lines: the user's own
    text in a protected region is read too) is screened as one text, continued lines joined,
    and every finding it has that ``before`` read so did not have is the edit's: a run of a
    file an earlier edit (or the user's own text) downloads, the ``| sh`` that ends another
    edit's ``curl ... \\`` line. What ``before`` already had, the user's text alone included,
    is never the edit's. Their reasons say so; their lines are lines of ``after``."""
    if after == before:
        return ()
    own = screen_text(_written(before, after), ctx)
    if own:
        return own
    had = Counter(_keyed(before, ctx))
    new = []
    for key, finding in zip(_keyed(after, ctx), _learned_findings(after, ctx), strict=True):
        if had[key]:
            had[key] -= 1
        else:
            new.append(replace(finding, reason=f"{finding.reason}; {_WITH_THE_REST}"))
    return tuple(new)


def _written(old: str, new: str) -> str:
    """The lines of ``new`` that ``old`` does not have (as many times): what an edit wrote."""
    have = Counter(old.split("\n"))
    lines = []
    for line in new.split("\n"):
        if have[line]:
            have[line] -= 1
        else:
            lines.append(line)
    return "\n".join(lines)


def _instructions(text: str) -> str:
    """``text`` as the agent follows it: the frontmatter and the protected regions' marker lines
    blanked (their number kept), the regions' bodies kept, for a learned line may complete what
    the user's own text starts (a download there, its run here)."""
    frontmatter = split_frontmatter(text)[0]
    blanks = [(0, len(frontmatter))]
    for region in protected_regions(text):
        blanks += [(region.start, region.body_start), (region.body_end, region.end)]
    parts, at = [], 0
    for start, end in blanks:
        parts += [text[at:start], "\n" * text.count("\n", start, end)]
        at = end
    parts.append(text[at:])
    return "".join(parts)


@functools.lru_cache(maxsize=8)
def _learned_findings(text: str, ctx: ScreenContext | None) -> tuple[Finding, ...]:
    read_as, context = _instructions(text), ctx or ScreenContext()
    return tuple(
        Finding(rule.kind, line, reason)
        for rule in RULES
        if rule.kind != "oversize"
        for line, reason in rule.check(read_as, context)
    )


def _keyed(text: str, ctx: ScreenContext | None) -> list[tuple[str, str, str]]:
    """Each learned-text finding of ``text`` as (kind, reason, the line it is on)."""
    lines = text.split("\n")
    return [(f.kind, f.reason, lines[f.line - 1]) for f in _learned_findings(text, ctx)]


def without_invisible(text: str) -> str:
    """``text`` without the characters the invisible-characters rule objects to (for text the
    engine writes into a skill outside edits, such as a frontmatter description)."""
    return "".join(c for c in text if not invisible(c))


def summary(findings: Iterable[Finding]) -> str:
    """One line naming each finding, for a rejected edit's reason."""
    return "; ".join(str(f) for f in findings)


def split_screened(
    edits: Iterable[Edit], ctx: ScreenContext | None = None
) -> tuple[list[Edit], list[tuple[Edit, tuple[Finding, ...]]]]:
    """``edits`` that pass the screen (in order), and each refused edit once with its findings."""
    kept: list[Edit] = []
    refused: list[tuple[Edit, tuple[Finding, ...]]] = []
    seen: set[tuple[str, str, str]] = set()
    for edit in edits:
        findings = screen_edit(edit, ctx)
        if not findings:
            kept.append(edit)
        elif edit.key() not in seen:
            seen.add(edit.key())
            refused.append((edit, findings))
    return kept, refused


REFUSED_PREFIX = "refused by the edit screen: "


def refusal(findings: Iterable[Finding]) -> str:
    """Why an edit with ``findings`` is refused: the reason an apply report and a step give."""
    return f"{REFUSED_PREFIX}{summary(findings)}"


def refused_edit(edit: Edit, reason: str) -> Edit:
    """``edit`` as the rejected-edit buffer keeps it: the refusal ``reason`` leads its rationale
    (the key that blocks it is unchanged), so a report shows why it never reached the gate."""
    return replace(edit, rationale=f"{reason}. Optimizer's rationale: {edit.rationale}")
