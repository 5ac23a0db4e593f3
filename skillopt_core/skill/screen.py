"""Screen what an edit would write into a skill before it is tried.

The skill document is read into every later session of the agent, and the text an optimizer
learns from is partly written by others (tool output, a dependency's README, a pasted issue, a
model's answer). A compromised or fooled optimizer can therefore propose an instruction the user
never gave: pipe a download into a shell, send ``.env`` somewhere, skip the user's approval. The
gate only asks whether a candidate scores better, so such an edit must be stopped before it.

:func:`screen_text` runs every rule of :data:`RULES` over a text and returns its
:class:`Finding`\\ s (empty: nothing to object to); :func:`screen_edit` screens the text an edit
would write; :func:`split_screened` sorts a step's proposals, and :func:`refused_edit` is how a
refused one is remembered. Matching reads each line as the agent would understand it: invisible
characters dropped, compatibility forms folded (full-width letters), case ignored
(:mod:`._screen_read`); the command and secret rules live in :mod:`._screen_commands`. The rules
aim at what no ordinary procedure needs, so ``pytest -q``, ``curl -fsSL`` on a
health endpoint or a URL the skill or the user's requests already name pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from skillopt_core.records import Edit, EditOp
from skillopt_core.redaction import PLACEHOLDER_RE, redact
from skillopt_core.skill._screen_commands import download_runs, secret_leaks
from skillopt_core.skill._screen_read import (
    LOOPBACK_HOSTS,
    hosts_in,
    invisible,
    is_loopback,
    known_hosts,
    numbered_lines,
)

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


def _per_line(reason: str, *patterns: re.Pattern[str]) -> Callable[[str, ScreenContext], list[Hit]]:
    def check(text: str, ctx: ScreenContext) -> list[Hit]:
        return [
            (n, reason) for n, line in numbered_lines(text) if any(p.search(line) for p in patterns)
        ]

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
    for number, line in enumerate(text.split("\n"), 1):
        new = sorted(h for h in hosts_in(line) if h not in ctx.hosts and not is_loopback(h))
        if new:
            yield (
                number,
                f"names a host neither the skill nor the user's requests name: {', '.join(new)}",
            )


# --- overriding the user, the harness's approvals or its sandbox ------------------------------

_OVERRIDE_RES = (
    re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?"
        r"\b(?:previous|prior|above|earlier|preceding|original|user'?s?|system|developer'?s?)\b"
        r"[^.\n]{0,20}?\b(?:instructions?|prompts?|directions?|guidelines?|messages?|requests?)\b"
    ),
    re.compile(r"\b(?:new|updated|real|actual)\s+(?:system\s+)?instructions?\s*:"),
    re.compile(
        r"(?:\b(?:never|without|no need to)\b|\b(?:do not|don't|must not|stop)\b)\s+"
        r"(?:ever\s+)?(?:ask\w*|wait\w*|seek\w*|request\w*|check\w*|consult\w*)\s+(?:with\s+)?"
        r"(?:\bfor\s+)?(?:the\s+|their\s+|any\s+)?(?:(?:user|developer|human)'?s?\b[^.\n]{0,12}?)?"
        r"(?:\bfor\s+)?(?:the\s+)?(?:permission|approval|consent|(?:user|developer|human)\b)"
    ),
    re.compile(
        r"(?:\b(?:never|without)\b|\b(?:do not|don't|must not)\b)\s+(?:ever\s+)?"
        r"(?:tell\w*|inform\w*|notify\w*|mention\w*|reveal\w*|disclos\w*|alert\w*)\b"
        r"[^.\n]{0,30}?\b(?:user|developer|human)\b"
    ),
    re.compile(r"\bhide\b[^.\n]{0,30}?\bfrom\s+(?:the\s+)?(?:user|developer|human)\b"),
    re.compile(
        r"\b(?:disable|turn\s+off|switch\s+off|bypass|circumvent|deactivate|skip|escape)\b\s+"
        r"(?:\w+\s+){0,2}?(?:sandbox\w*|permission\s+(?:checks?|prompts?|system)|safety\s+\w+|"
        r"guardrails?|approval\s+(?:prompts?|checks?)|security\s+(?:checks?|scan\w*|warnings?)|"
        r"antivirus|firewall|selinux|apparmor)"
    ),
    re.compile(
        r"--dangerously-\w[\w-]*|--yolo\b|\bbypasspermissions\b|--allow-all-tools\b|"
        r"--ask-for-approval\s+never|approval[_-]policy\s*=?\s*['\"]?never|danger-full-access"
    ),
)
_overrides = _per_line(
    "tells the agent to override the user, skip approvals or leave its sandbox", *_OVERRIDE_RES
)


# --- what the text hides or forges ------------------------------------------------------------


def _invisible_chars(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        odd = sorted(
            {
                f"U+{ord(c):04X}"
                for c in line
                if invisible(c) and not _emoji_part(line, c) and not _orthographic_joiner(line, c)
            }
        )
        if odd:
            yield number, f"holds invisible or direction-changing characters: {', '.join(odd)}"


def _emoji_part(line: str, char: str) -> bool:
    """A joiner or presentation selector between pictographs (an emoji sequence), not a hiding
    place: U+200D and U+FE0F next to symbols only."""
    if char not in "\u200d\ufe0f":
        return False
    for m in re.finditer(re.escape(char), line):
        before = line[m.start() - 1] if m.start() else ""
        if not before or (unicodedata.category(before) not in ("So", "Sk") and before != "\ufe0f"):
            return False
    return True


def _orthographic_joiner(line: str, char: str) -> bool:
    """U+200C / U+200D as spelling: Persian writes ZWNJ inside words ("می‌خواهم"), Indic scripts
    use both to choose a conjunct or a half form ("क्‍ष"). Allowed after a letter or mark of a script
    other than Latin, one at a time; after a Latin letter or in a run they hide or encode text."""
    if char not in "\u200c\u200d":
        return False
    for m in re.finditer(re.escape(char), line):
        before = line[m.start() - 1] if m.start() else ""
        after = line[m.end()] if m.end() < len(line) else ""
        if not _other_script_letter(before) or (after and invisible(after)):
            return False
    return True


def _other_script_letter(char: str) -> bool:
    return (
        bool(char)
        and not char.isascii()
        and unicodedata.category(char)[0] in "LM"
        and not unicodedata.name(char, "").startswith("LATIN")
    )


_MARKER_RE = re.compile(r"skillopt(?:-sleep)?\s*:\s*(?:protected|learned|engine)")
_forged_markers = _per_line(
    "holds a skillopt marker: it could forge or end a protected or learned block", _MARKER_RE
)
_hidden_markup = _per_line(
    "holds text a rendered view hides (an HTML comment, a hidden element, a link-label comment)",
    re.compile(r"<!--|display\s*:\s*none|<\s*(?:script|iframe|object)\b"),
    re.compile(r"^\s*\[[^\]]*\]\s*:\s*(?:#|<>)"),
)


def _placeholders(text: str, ctx: ScreenContext) -> Iterator[Hit]:
    for number, line in enumerate(text.split("\n"), 1):
        if PLACEHOLDER_RE.search(line) or "[redacted:" in line.casefold():
            yield number, "holds a redaction placeholder: a secret was cut from what it quotes"
        elif redact(line) != line:
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


def screen_text(text: str, ctx: ScreenContext | None = None) -> tuple[Finding, ...]:
    """Every finding of every rule on ``text`` (empty: nothing to object to)."""
    context = ctx or ScreenContext()
    return tuple(
        Finding(rule.kind, line, reason)
        for rule in RULES
        for line, reason in rule.check(text, context)
    )


def screen_edit(edit: Edit, ctx: ScreenContext | None = None) -> tuple[Finding, ...]:
    """The findings on what ``edit`` would write (a delete writes nothing)."""
    if edit.op is EditOp.DELETE:
        return ()
    return screen_text(edit.content, ctx)


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
