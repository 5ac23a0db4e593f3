"""One redaction hook for everything that is stored or leaves the machine.

Harvesters call :func:`redact` (or :func:`redact_many` for a whole session) on every kept text and
backends on every outbound prompt, so ordinary text must cost little: each rule is tried only
where it can start (a case-sensitive literal found by substring search, or a lowercase anchor
word), and the entropy scan only inspects runs of 32+ token characters.

Secrets become typed placeholders (``[REDACTED:github-token]``); text inside placeholders is never
matched again, and passes repeat until nothing changes, so ``redact`` is idempotent.

High-entropy policy (the only heuristic rule): a run of ``[A-Za-z0-9+/_=-]`` of 32+ characters is
redacted when it mixes upper case, lower case and digits, is not mostly made of words
(identifiers, paths), is not a hex digest or UUID (hex and dashes only) nor an ``sha512-``
integrity hash, nor an ssh public key blob, a camera file name, a path whose segments are all
ordinary, a go.sum ``h1:`` hash or a CSS class name (see ``_entropy``), and its Shannon entropy clears a length-dependent threshold that a random base62
string of that length clears 99% of the time. Hex secrets therefore only fall to the named rules
(``*_TOKEN=...`` assignments, headers); git SHAs and UUIDs, which fill coding transcripts, stay.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from skillopt_core import _entropy, _redaction_scan, _secret_rules
from skillopt_core._entropy import (
    entropy_candidates,
    looks_high_entropy,
    public_context,
    shannon_entropy,
)
from skillopt_core._redaction_scan import (
    PLACEHOLDER_RE,
    Sub,
    anchor_positions,
    apply_matches,
    apply_rule,
    ascii_lower,
    assignment_at,
    assignment_positions,
    gate_words,
    live_anchors,
    may_assign,
    scan_hits,
    sub_outside_placeholders,
)
from skillopt_core._secret_rules import (
    ASSIGNMENT,
    ASSIGNMENT_NO_FLAG,
    KEY_QUALIFIERS,
    RULES,
    Rule,
    assignment_kind,
    assignment_value_is_secret,
    key_before,
)

_MAX_PASSES = 4
Counts = defaultdict[str, int]  # per kind; only ever incremented, so it holds no zero
_NUL = "\x00"
_BATCH_SEP = "\n\x00\n"


def _gate_words_of(rules: Iterable[Rule]) -> frozenset[str]:
    return frozenset(word for rule in rules for word in rule.gate)


# ``KEY = value`` and ``Authorization: ...`` redact only across a ``:`` or ``=``, or after a
# ``--flag`` (``_assignment_repl`` declines a bare-space separator otherwise). The rules before
# them add only placeholders: a ``:`` after ``REDACTED``, where no key word ends, never a ``=``
# or a ``--``. So in a text holding none of these (prose), the words only these two rules are
# gated on are not searched.
_SEPARATED = {ASSIGNMENT, *(rule for rule in RULES if rule.kind == "authorization")}
_SEPARATED_WORDS = _gate_words_of(_SEPARATED) - _gate_words_of(
    rule for rule in RULES if rule.anchors and rule not in _SEPARATED
)
_FLAG = re.compile("--").search  # sre's loop for a literal prefix: faster than ``in`` here


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True)
class RedactionResult:
    text: str
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _safe_kind(kind: str) -> str:
    cleaned = re.sub(r"[^a-z0-9-]+", "-", kind.lower()).strip("-")
    return cleaned or "custom"


class Redactor:
    """Built-in secret rules plus user ``extra_patterns`` (kind -> regex) and an allowlist.

    An extra pattern with a named group ``secret`` replaces only that group. ``allowlist`` holds
    literal strings and ``allow_patterns`` regexes (full match) that are never redacted, e.g. a
    public test key that appears in documentation.
    """

    def __init__(
        self,
        extra_patterns: Mapping[str, str] | Iterable[tuple[str, str]] = (),
        allowlist: Iterable[str] = (),
        allow_patterns: Iterable[str] = (),
        *,
        entropy: bool = True,
    ) -> None:
        items = extra_patterns.items() if isinstance(extra_patterns, Mapping) else extra_patterns
        self._extra = tuple((_safe_kind(k), re.compile(p)) for k, p in items)
        self._allow = frozenset(allowlist)
        self._allow_res = tuple(re.compile(p) for p in allow_patterns)
        self._entropy = entropy

    def _allowed(self, secret: str) -> bool:
        return secret in self._allow or any(rx.fullmatch(secret) for rx in self._allow_res)

    def redact(self, text: str) -> str:
        return self._redact(text, defaultdict(int))

    def redact_many(self, texts: Sequence[str]) -> list[str]:
        """``[self.redact(t) for t in texts]``, but one scan over the joined texts.

        The per-call overhead (the gate, the entropy scan) dominates for short texts, so a
        harvester redacting a whole session at once pays it once. No rule crosses the NUL
        separator; if a user pattern does, the texts are redacted one by one.
        """
        if len(texts) < 2 or _NUL in "".join(texts):  # one memchr, not one call per text
            return [self.redact(t) for t in texts]
        joined = _BATCH_SEP.join(texts)
        counts: Counts = defaultdict(int)
        once = self._one_pass(joined, counts)
        if once == joined:  # the usual case: splitting would give the texts back
            return list(texts)
        parts = once.split(_BATCH_SEP)
        if len(parts) != len(texts):
            return [self.redact(t) for t in texts]
        # A text the first pass left alone is done; one it changed goes on alone for the passes
        # left (a match can unmask a neighbour), so the batch's other texts are not scanned again.
        return [
            part if part == text else self._redact(part, counts, _MAX_PASSES - 1)
            for part, text in zip(parts, texts, strict=True)
        ]

    def redact_with_report(self, text: str) -> RedactionResult:
        """Redact until nothing changes (a match can unmask a neighbour), counting by kind."""
        counts: Counts = defaultdict(int)
        return RedactionResult(self._redact(text, counts), dict(counts))

    def _redact(self, text: str, counts: Counts, passes: int = _MAX_PASSES) -> str:
        for _ in range(passes):
            redacted = self._one_pass(text, counts)
            if redacted == text:
                break
            text = redacted
        return text

    def _one_pass(self, text: str, counts: Counts) -> str:
        if not text:
            return text
        low = ascii_lower(text)
        hits = scan_hits(text)
        separated = ":" in text or "=" in text or _FLAG(text) is not None
        words = gate_words(low, frozenset() if separated else _SEPARATED_WORDS)
        # The entropy rule redacts only a run mixing cases (``looks_high_entropy``): a text
        # without a capital (one comparison with its lowered self) holds none.
        caseless = low == text
        if hits or words:
            redacted = self._rules(text, low, hits, words, counts)
            caseless = caseless and redacted is text
            text = redacted
        return self._unanchored(text, counts, caseless)

    def _rules(self, text: str, low: str, hits: str, words: frozenset[str], counts: Counts) -> str:
        """``words``: the gate words of the text before any rule ran (a placeholder may add
        ``token`` or ``secret``, but never a match: placeholders are skipped), less those of the
        rules that cannot redact it (``_SEPARATED_WORDS``)."""
        for rule in (*RULES, ASSIGNMENT):
            if not rule.anchors:
                if hits and any(map(hits.__contains__, rule.literals)):
                    new = apply_rule(
                        rule, text, rule.regex.finditer(text), self._repl(rule, counts)
                    )
                    text, low = (new, "") if new is not text else (text, low)
                continue
            if words.isdisjoint(rule.gate):
                continue
            low = low or ascii_lower(text)
            anchors = live_anchors(rule, words)
            if rule is ASSIGNMENT:
                positions = [
                    p
                    for p in assignment_positions(low, anchors)
                    if low[p] != "k" or may_assign(text, p)
                ]
            else:
                positions = anchor_positions(low, anchors)
            if not positions:
                continue
            match_at = assignment_at if rule is ASSIGNMENT else rule.regex.match
            new = apply_rule(rule, text, positions, self._repl(rule, counts), match_at)
            text, low = (new, "") if new is not text else (text, low)
        return text

    def _unanchored(self, text: str, counts: Counts, caseless: bool = False) -> str:
        """The user's patterns, then the entropy rule (not for a ``caseless`` text, unless a
        pattern changed it)."""
        original = text
        for kind, rx in self._extra:
            text = sub_outside_placeholders(rx, self._extra_repl(kind, counts), text)
        if caseless and text is original:
            return text
        if self._entropy and len(text) >= 32:
            text = apply_matches(text, entropy_candidates(text), self._entropy_repl(counts))
        return text

    def _replace_group(self, m: re.Match[str], group: str | int, kind: str, counts: Counts) -> str:
        secret = m.group(group)
        if self._allowed(secret):
            return m.group()
        counts[kind] += 1
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        whole = m.group()
        return whole[:start] + placeholder(kind) + whole[end:]

    def _repl(self, rule: Rule, counts: Counts) -> Sub:
        if rule is ASSIGNMENT:
            return self._assignment_repl(counts)
        accept = rule.accept
        if accept is not None:
            return lambda m: (
                self._replace_group(m, rule.group, rule.kind, counts) if accept(m) else m.group()
            )
        return lambda m: self._replace_group(m, rule.group, rule.kind, counts)

    def _assignment_repl(self, counts: Counts) -> Sub:
        def repl(m: re.Match[str]) -> str:
            before = key_before(m.string, m.start())
            if m.group().lower().startswith("key") and not (
                before.lower().rstrip("_-.").endswith(KEY_QUALIFIERS)
            ):
                return m.group()
            key = before + m.string[m.start() : m.start("sep")]
            sep = m.group("sep").strip()
            if not sep and not key.startswith("--"):
                return m.group()
            for group, quoted in (("dq", True), ("sq", True), ("s", False)):
                value = m.group(group)
                if value is not None:
                    if not assignment_value_is_secret(key, sep, value, quoted):
                        return m.group()
                    return self._replace_group(m, group, assignment_kind(key), counts)
            return m.group()

        return repl

    def _extra_repl(self, kind: str, counts: Counts) -> Sub:
        def repl(m: re.Match[str]) -> str:
            if "secret" in m.re.groupindex:
                return self._replace_group(m, "secret", kind, counts)
            if self._allowed(m.group()):
                return m.group()
            counts[kind] += 1
            return placeholder(kind)

        return repl

    def _entropy_repl(self, counts: Counts) -> Sub:
        def repl(m: re.Match[str]) -> str:
            token = m.group()
            if not looks_high_entropy(token) or self._allowed(token):
                return token
            if public_context(m.string, m.start(), m.end()):
                return token
            counts["high-entropy"] += 1
            return placeholder("high-entropy")

        return repl


_default = Redactor()


def configure(redactor: Redactor) -> None:
    """Install the process-wide redactor (user extra patterns and allowlist from the config)."""
    global _default
    _default = redactor


def default_redactor() -> Redactor:
    return _default


def redact(text: str) -> str:
    """Replace secrets in ``text`` with typed placeholders such as ``[REDACTED:github-token]``."""
    return _default.redact(text)


def redact_many(texts: Sequence[str]) -> list[str]:
    """Redact a batch (e.g. every kept text of one session) with one scan; see ``Redactor``."""
    return _default.redact_many(texts)


def rules_fingerprint(redactor: Redactor | None = None) -> str:
    """A digest of what ``redactor`` (default: the process-wide one) redacts: the built-in rules
    (kinds, patterns, where each is tried), the source of the code that judges and scans (the
    entropy policy, the ``KEY = value`` judgement, this module) and the user's extra patterns and
    allowlist. A store that keeps redacted text records it: under another fingerprint, it may
    hold a secret these rules redact (the miner's archive then redacts it again)."""
    chosen = redactor or _default
    identity = {
        "rules": [_rule_identity(rule) for rule in (*RULES, ASSIGNMENT)],
        "assignment-no-flag": ASSIGNMENT_NO_FLAG.pattern,
        "code": _code_digest(),
        "extra": [[kind, rx.pattern, rx.flags] for kind, rx in chosen._extra],
        "allow": sorted(chosen._allow),
        "allow-patterns": [[rx.pattern, rx.flags] for rx in chosen._allow_res],
        "entropy": chosen._entropy,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def _rule_identity(rule: Rule) -> list[object]:
    return [
        rule.kind,
        rule.regex.pattern,
        rule.regex.flags,
        list(rule.literals),
        list(rule.anchors),
        list(rule.gate),
        rule.group,
        sorted(rule.left_exclude),
    ]


@functools.cache
def _code_digest() -> str:
    """The redaction code's source ("" where it is not shipped): a fix to a predicate changes
    what is redacted without changing any pattern."""
    import inspect

    digest = hashlib.sha256()
    for module in (_secret_rules, _entropy, _redaction_scan, sys.modules[__name__]):
        try:
            digest.update(inspect.getsource(module).encode("utf-8"))
        except (OSError, TypeError):
            return ""
    return digest.hexdigest()


__all__ = [
    "PLACEHOLDER_RE",
    "RedactionResult",
    "Redactor",
    "configure",
    "default_redactor",
    "looks_high_entropy",
    "placeholder",
    "redact",
    "redact_many",
    "rules_fingerprint",
    "shannon_entropy",
]
