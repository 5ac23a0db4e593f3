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
integrity hash, and its Shannon entropy clears a length-dependent threshold that a random base62
string of that length clears 99% of the time. Hex secrets therefore only fall to the named rules
(``*_TOKEN=...`` assignments, headers); git SHAs and UUIDs, which fill coding transcripts, stay.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
_PLACEHOLDER_MARK = "[REDACTED:"
_MAX_PASSES = 4
_NUL = "\x00"
_BATCH_SEP = "\n\x00\n"


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


@dataclass(frozen=True)
class _Rule:
    """A secret format, tried only where it can start, so ordinary text stays cheap.

    Case-sensitive formats list ``literals`` (one must occur in the text, then the regex scans
    with sre's fast literal-prefix search); case-insensitive ones list lowercase ``anchors`` and
    the regex is matched at each anchor in the lowered text. ``group`` names the secret part (the
    rest of the match, a key or header name, is kept).
    """

    kind: str
    regex: re.Pattern[str]
    literals: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    group: str | int = 0
    left_exclude: frozenset[str] = frozenset()


_ALNUM = frozenset(string.ascii_letters + string.digits)
_WORDISH = _ALNUM | {"_", "-"}
_AWS_PREFIXES = (
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "AGPA",
    "AIDA",
    "AROA",
    "AIPA",
    "ANPA",
    "ANVA",
    "APKA",
)
_KEY_WORDS = (
    "secret", "token", "passw", "passphrase", "api_key", "api-key", "apikey", "access_key",
    "access-key", "private_key", "private-key", "auth_key", "auth-key", "signing_key",
    "encryption_key", "master_key", "session_key", "credential",
)  # fmt: skip
_KEY_WORD_RE = (
    r"(?i:secret|token|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?key|(?:secret|signing|encryption|master|session)[_-]?key|credentials?)"
)


def _scan(
    kind: str,
    literals: tuple[str, ...],
    pattern: str,
    group: str | int = 0,
    left: frozenset[str] = _ALNUM,
) -> _Rule:
    return _Rule(kind, re.compile(pattern), literals=literals, group=group, left_exclude=left)


def _anchored(
    kind: str,
    anchors: tuple[str, ...],
    pattern: str,
    group: str | int = 0,
    left: frozenset[str] = frozenset(),
) -> _Rule:
    return _Rule(kind, re.compile(pattern), anchors=anchors, group=group, left_exclude=left)


# Applied in order: named token formats first (so values get their precise kind), then the
# context rules that only recognise a secret by what stands around it.
_RULES: tuple[_Rule, ...] = (
    _scan(
        "private-key",
        ("-----BEGIN",),
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?=(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]{16}|Proc-Type))(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*?"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?![A-Za-z0-9+/=\s:,-]|\\[nr]))",
        left=frozenset(),
    ),
    _scan("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _scan(
        "openai-key",
        ("sk-",),
        r"sk-(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{20,}",
    ),
    _scan(
        "github-token",
        ("gh", "github_pat_"),
        r"g(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{30,})",
    ),
    _scan(
        "aws-access-key-id",
        _AWS_PREFIXES,
        rf"A(?:{'|'.join(p[1:] for p in _AWS_PREFIXES)})[A-Z0-9]{{16}}(?![A-Za-z0-9])",
    ),
    _scan("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _scan(
        "slack-webhook",
        ("hooks.slack.com/services/",),
        r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}",
        left=frozenset(),
    ),
    _scan("slack-token", ("xox",), r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    _scan(
        "stripe-key",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
        r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
    ),
    _scan(
        "jwt",
        ("eyJ",),
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        left=_WORDISH,
    ),
    _anchored(
        "authorization",
        ("authorization",),
        r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?i:bearer|basic|token|bot|digest)\s+)?(?P<s>(?![$\[])[A-Za-z0-9._~+/=-]{8,})",
        "s",
    ),
    _anchored(
        "bearer-token", ("bearer",), r"(?i:bearer)\s+(?P<s>[A-Za-z0-9._~+/-]{20,}=*)", "s", _ALNUM
    ),
    _scan(
        "url-credentials",
        ("://",),
        r"://(?P<s>[^\s:/@\"'<>\[\]]+:[^\s/@\"'<>\[\]]+)(?=@)",
        "s",
        left=frozenset(),
    ),
)
# ``KEY = value`` in env, JSON, YAML, TOML and code shapes, and ``--password value`` flags;
# anchored at the key word, which must end the key. ``_assignment_value_is_secret`` judges the
# value.
_ASSIGNMENT = _anchored(
    "secret",
    _KEY_WORDS,
    rf"{_KEY_WORD_RE}(?![A-Za-z0-9_])[\"']?(?P<sep>[ \t]*(?::=|=>|=|:)[ \t]*| )"
    r"(?:\"(?P<dq>(?!\[REDACTED:)[^\"\s\\]{4,})\"|'(?P<sq>(?!\[REDACTED:)[^'\s\\]{4,})'"
    r"|(?P<s>[^\s\"'`,;(){}\[\]<>]{6,}))",
)

_NOT_A_VALUE = frozenset(
    ("none", "null", "nil", "true", "false", "undefined", "required", "optional", "string",
     "str", "bool", "int", "empty", "redacted", "hidden", "masked")
)  # fmt: skip
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_MASKED_RE = re.compile(r"[*xX•.#-]+")
_ENV_KEY_RE = re.compile(r"[\"']?[A-Z0-9_]+[\"']?")

_ENTROPY_CANDIDATE_RE = re.compile(
    r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,3}(?![A-Za-z0-9+/=_-])"
)
_WORD_RE = re.compile(r"[A-Za-z][a-z]{3,}")
_HEXISH_RE = re.compile(r"[0-9a-fA-F-]+")
_INTEGRITY_RE = re.compile(r"sha(?:1|256|384|512)-")


def shannon_entropy(text: str) -> float:
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _entropy_threshold(length: int) -> float:
    return min(4.0 + 0.6 * math.log2(length / 32), 4.6)


def looks_high_entropy(token: str) -> bool:
    """The heuristic rule documented in the module docstring."""
    n = len(token)
    if n < 32 or _HEXISH_RE.fullmatch(token) or _INTEGRITY_RE.match(token):
        return False
    if not (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    ):
        return False
    if sum(m.end() - m.start() for m in _WORD_RE.finditer(token)) >= 0.6 * n:
        return False
    return shannon_entropy(token) >= _entropy_threshold(n)


def _assignment_kind(key: str) -> str:
    low = key.lower()
    return "aws-secret-key" if "aws" in low and "secret" in low else "secret"


def _assignment_value_is_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
    low = value.lower()
    if low in _NOT_A_VALUE or _MASKED_RE.fullmatch(value):
        return False
    if value[0] in "$%{<" or value.startswith("os."):
        return False
    if value.isdigit() and len(value) < 8:
        return False
    if quoted:
        return True
    env_shape = _ENV_KEY_RE.fullmatch(key) is not None and sep == "="
    if env_shape:
        return True
    # Code and prose (`token = self.token`, `password: optional`): identifiers are not secrets.
    is_identifier = _IDENTIFIER_RE.fullmatch(value) is not None
    return not (is_identifier and ("." in value or not any(c.isdigit() for c in value)))


@dataclass(frozen=True)
class RedactionResult:
    text: str
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


_Sub = Callable[[re.Match[str]], str]


def _sub_outside_placeholders(rx: re.Pattern[str], repl: _Sub, text: str) -> str:
    if _PLACEHOLDER_MARK not in text:
        return rx.sub(repl, text)
    out: list[str] = []
    pos = 0
    for m in PLACEHOLDER_RE.finditer(text):
        out.append(rx.sub(repl, text[pos : m.start()]))
        out.append(m.group())
        pos = m.end()
    out.append(rx.sub(repl, text[pos:]))
    return "".join(out)


def _ascii_lower(text: str) -> str:
    """``text.lower()`` with indices preserved (a few non-ASCII letters lower to two chars)."""
    low = text.lower()
    return low if len(low) == len(text) else text.encode("ascii", "replace").decode().lower()


def _placeholder_spans(text: str) -> list[tuple[int, int]]:
    if _PLACEHOLDER_MARK not in text:
        return []
    return [m.span() for m in PLACEHOLDER_RE.finditer(text)]


def _anchor_positions(low: str, anchors: tuple[str, ...]) -> list[int]:
    found: set[int] = set()
    for anchor in anchors:
        i = low.find(anchor)
        while i != -1:
            found.add(i)
            i = low.find(anchor, i + 1)
    return sorted(found)


def _apply(rule: _Rule, text: str, matches: Iterable[re.Match[str] | None], repl: _Sub) -> str:
    """Replace, left to right and without overlap, the rule's matches (``None`` = no match)."""
    spans = _placeholder_spans(text)
    out: list[str] = []
    last = 0
    for m in matches:
        if m is None or m.start() < last:
            continue
        start, end = m.span()
        if start and start != last and text[start - 1] in rule.left_exclude:
            continue
        if any(a < end and start < b for a, b in spans):
            continue
        out.append(text[last:start])
        out.append(repl(m))
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")


def _key_before(text: str, pos: int) -> str:
    start = pos
    while start > 0 and text[start - 1] in _KEY_CHARS:
        start -= 1
    if start > 0 and text[start - 1] in "\"'":
        start -= 1
    return text[start:pos]


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
        return self.redact_with_report(text).text

    def redact_many(self, texts: Sequence[str]) -> list[str]:
        """``[self.redact(t) for t in texts]``, but one scan over the joined texts.

        The per-call overhead (the gate, the entropy scan) dominates for short texts, so a
        harvester redacting a whole session at once pays it once. No rule crosses the NUL
        separator; if a user pattern does, the texts are redacted one by one.
        """
        if len(texts) < 2 or any(_NUL in t for t in texts):
            return [self.redact(t) for t in texts]
        parts = self.redact(_BATCH_SEP.join(texts)).split(_BATCH_SEP)
        if len(parts) != len(texts):
            return [self.redact(t) for t in texts]
        return parts

    def redact_with_report(self, text: str) -> RedactionResult:
        """Redact until nothing changes (a match can unmask a neighbour), counting by kind."""
        counts: Counter[str] = Counter()
        for _ in range(_MAX_PASSES):
            redacted = self._one_pass(text, counts)
            if redacted == text:
                break
            text = redacted
        return RedactionResult(text, dict(counts))

    def _one_pass(self, text: str, counts: Counter[str]) -> str:
        if not text:
            return text
        low = ""
        for rule in (*_RULES, _ASSIGNMENT):
            if rule.literals:
                if any(lit in text for lit in rule.literals):
                    text = _apply(rule, text, rule.regex.finditer(text), self._repl(rule, counts))
                    low = ""
                continue
            low = low or _ascii_lower(text)
            if any(a in low for a in rule.anchors):
                found = (
                    rule.regex.match(text, pos) for pos in _anchor_positions(low, rule.anchors)
                )
                text = _apply(rule, text, found, self._repl(rule, counts))
                low = ""
        return self._unanchored(text, counts)

    def _unanchored(self, text: str, counts: Counter[str]) -> str:
        for kind, rx in self._extra:
            text = _sub_outside_placeholders(rx, self._extra_repl(kind, counts), text)
        if self._entropy and len(text) >= 32:
            text = _sub_outside_placeholders(
                _ENTROPY_CANDIDATE_RE, self._entropy_repl(counts), text
            )
        return text

    def _replace_group(
        self, m: re.Match[str], group: str | int, kind: str, counts: Counter[str]
    ) -> str:
        secret = m.group(group)
        if self._allowed(secret):
            return m.group()
        counts[kind] += 1
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        whole = m.group()
        return whole[:start] + placeholder(kind) + whole[end:]

    def _repl(self, rule: _Rule, counts: Counter[str]) -> _Sub:
        if rule is _ASSIGNMENT:
            return self._assignment_repl(counts)
        return lambda m: self._replace_group(m, rule.group, rule.kind, counts)

    def _assignment_repl(self, counts: Counter[str]) -> _Sub:
        def repl(m: re.Match[str]) -> str:
            key = _key_before(m.string, m.start()) + m.string[m.start() : m.start("sep")]
            sep = m.group("sep").strip()
            if not sep and not key.startswith("--"):
                return m.group()
            for group, quoted in (("dq", True), ("sq", True), ("s", False)):
                value = m.group(group)
                if value is not None:
                    if not _assignment_value_is_secret(key, sep, value, quoted):
                        return m.group()
                    return self._replace_group(m, group, _assignment_kind(key), counts)
            return m.group()

        return repl

    def _extra_repl(self, kind: str, counts: Counter[str]) -> _Sub:
        def repl(m: re.Match[str]) -> str:
            if "secret" in m.re.groupindex:
                return self._replace_group(m, "secret", kind, counts)
            if self._allowed(m.group()):
                return m.group()
            counts[kind] += 1
            return placeholder(kind)

        return repl

    def _entropy_repl(self, counts: Counter[str]) -> _Sub:
        def repl(m: re.Match[str]) -> str:
            token = m.group()
            if not looks_high_entropy(token) or self._allowed(token):
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
