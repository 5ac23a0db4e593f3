"""What counts as a secret: the named formats and the ``KEY = value`` judgement.

Pure data and predicates for :mod:`skillopt_core.redaction`, which owns the scanning.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A secret format, tried only where it can start, so ordinary text stays cheap.

    Case-sensitive formats scan with sre's fast literal-prefix search, when one of their
    ``literals`` occurs in the text (or always, without literals); case-insensitive ones list
    lowercase ``anchors`` and the regex is matched at each anchor of the lowered text, when one of
    the ``gate`` words (default: the anchors) occurs. ``group`` names the secret part (the rest
    of the match, a key or header name, is kept).
    """

    kind: str
    regex: re.Pattern[str]
    literals: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    gate: tuple[str, ...] = ()
    group: str | int = 0
    left_exclude: frozenset[str] = frozenset()
    accept: Callable[[re.Match[str]], bool] | None = None


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
# GitLab tokens: personal/project/group access, deploy, pipeline trigger, runner, OAuth
# application secret, feed, incoming mail, agent, SCIM and feature-flag client. The literals
# leave out the dash so the scan gate keys them all on ``g``, not on ``-`` (everywhere in code
# and paths); short-lived CI job tokens (``glcbt-``) would key on ``b``, so they are left out.
_GITLAB_KINDS = ("pat", "dt", "ptt", "rt", "oas", "ft", "imt", "agent", "soat", "ffct")
_GITLAB_PREFIXES = tuple(f"gl{k}" for k in _GITLAB_KINDS)
# Anchor words: the last word of a secret-bearing key. ``key`` only counts after one of the
# ``KEY_QUALIFIERS`` (``api_key``, ``SECRET_KEY``), never alone (``key = "name"`` is a dict key).
_KEY_WORDS = ("secret", "token", "passw", "passphrase", "key", "credential")
_KEY_WORD_RE = r"(?i:secret|token|passw(?:or)?d|passphrase|key|credentials?)"
KEY_QUALIFIERS = (
    "api", "access", "private", "auth", "secret", "signing", "encryption", "master", "session",
)  # fmt: skip


def _scan(
    kind: str,
    literals: tuple[str, ...],
    pattern: str,
    group: str | int = 0,
    left: frozenset[str] = _ALNUM,
    accept: Callable[[re.Match[str]], bool] | None = None,
) -> Rule:
    return Rule(
        kind, re.compile(pattern), literals=literals, group=group, left_exclude=left, accept=accept
    )


# Conditions on a whole token run are checked on the match, not by lookaheads at its start: a
# lookahead scans the rest of the run at every start the scan tries, and ``sk-sk-sk-...`` (or
# ``eyJeyJ...``) holds a start every few characters. Where the pattern consumes the run whether
# or not the condition holds, the scan moves past it once; every start inside the run would
# fail anyway (its part of the run is a subset of the refused one).
_HAS_DIGIT = re.compile(r"[0-9]")
_HAS_UPPER = re.compile(r"[A-Z]")
_HAS_LOWER = re.compile(r"[a-z]")


def _mixed_case_and_digit(m: re.Match[str]) -> bool:
    body = m.string[m.start() + 3 : m.end()]  # after ``sk-``
    return all(rx.search(body) for rx in (_HAS_DIGIT, _HAS_UPPER, _HAS_LOWER))


def _has_payload(m: re.Match[str]) -> bool:
    return m.group("payload") is not None


_ASSIGNED_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+=")
_VALUE_START = frozenset("\"'`$") | frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)


def _not_a_key_name(m: re.Match[str]) -> bool:
    """False when what an ``Authorization:`` rule took as the header's value is the name of an
    assignment that follows (``Authorization: SECRET_KEY="..."``): taking it would redact the
    name and leave the assigned secret, which the assignment rule then no longer sees. A
    snake-case name ending in ``=`` with a value right after it is no token (base64 holds no
    ``_``; a base64url token ending in ``=`` before a value does not occur in a header)."""
    after = m.string[m.end() : m.end() + 1]
    return not (_ASSIGNED_NAME.fullmatch(m.group("s")) and after in _VALUE_START)


def _anchored(
    kind: str,
    anchors: tuple[str, ...],
    pattern: str,
    group: str | int = 0,
    left: frozenset[str] = frozenset(),
    gate: tuple[str, ...] = (),
    accept: Callable[[re.Match[str]], bool] | None = None,
) -> Rule:
    return Rule(
        kind,
        re.compile(pattern),
        anchors=anchors,
        gate=gate or anchors,
        group=group,
        left_exclude=left,
        accept=accept,
    )


# Applied in order: named token formats first (so values get their precise kind), then the
# context rules that only recognise a secret by what stands around it.
RULES: tuple[Rule, ...] = (
    _scan(
        "private-key",
        ("-----BEGIN",),
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?=(?:\s|\\[nr])+(?:[A-Za-z0-9+/=]{16}|Proc-Type))(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*?"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?![A-Za-z0-9+/=\s:,-]|\\[nr]))",
        left=frozenset(),
    ),
    _scan("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _scan("openai-key", ("sk-",), r"sk-[A-Za-z0-9_-]{20,}", accept=_mixed_case_and_digit),
    _scan(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"g(?:h[pousr]_[A-Za-z0-9]{30,}|ithub_pat_[A-Za-z0-9_]{30,})",
    ),
    _scan(
        "gitlab-token",
        _GITLAB_PREFIXES,
        rf"gl(?:{'|'.join(_GITLAB_KINDS)})-[0-9A-Za-z_-]{{20,}}",
    ),
    _scan(
        "huggingface-token",
        ("hf_",),
        r"hf_(?=[a-z0-9]*[A-Z])(?=[A-Z0-9]*[a-z])[A-Za-z0-9]{34}(?![A-Za-z0-9_])",
    ),
    _scan("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36,}(?![A-Za-z0-9_])"),
    _scan(
        "sendgrid-key",
        ("SG.",),
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
    ),
    # Twilio API key SIDs are lowercase hex; gating on ``SK`` plus a hex digit keeps ``SKILL``
    # (in every transcript of this tool) from waking the rule.
    _scan(
        "twilio-key",
        tuple(f"SK{c}" for c in "0123456789abcdef"),
        r"SK[0-9a-f]{32}(?![0-9A-Za-z])",
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
    _scan("stripe-key", ("sk_live_", "sk_test_"), r"sk_(?:live|test)_[A-Za-z0-9]{16,}"),
    _scan("stripe-key", ("rk_live_", "rk_test_"), r"rk_(?:live|test)_[A-Za-z0-9]{16,}"),
    _scan("stripe-key", ("whsec_",), r"whsec_[A-Za-z0-9]{24,}"),
    _scan(
        "jwt",
        ("eyJ",),
        # each run taken whole, never backtracked into (a lookahead and its backreference: the
        # possessive ``{8,}+`` says the same but only from Python 3.11)
        r"eyJ(?=(?P<j1>[A-Za-z0-9_-]{8,}))(?P=j1)(?P<payload>\.eyJ(?=(?P<j2>[A-Za-z0-9_-]{8,}))"
        r"(?P=j2)\.(?=(?P<j3>[A-Za-z0-9_-]*))(?P=j3))?",
        left=_WORDISH,
        accept=_has_payload,
    ),
    _anchored(
        "authorization",
        ("authorization",),
        r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?i:bearer|basic|token|bot|digest)\s+)?(?P<s>(?![$\[])[A-Za-z0-9._~+/=-]{8,})",
        "s",
        accept=_not_a_key_name,
    ),
    _anchored(
        "bearer-token", ("bearer",), r"(?i:bearer)\s+(?P<s>[A-Za-z0-9._~+/-]{20,}=*)", "s", _ALNUM
    ),
    _scan(
        "url-credentials",
        ("://",),
        r"://(?P<s>[^\s:/@\"'<>\[\]]*:[^\s/@\"'<>\[\]]+)(?=@)",  # user may be empty
        "s",
        left=frozenset(),
    ),
)
# ``KEY = value`` in env, JSON, YAML, TOML and code shapes, and ``--password value`` flags;
# anchored at the key word, which must end the key. ``assignment_value_is_secret`` judges the
# value.
# ``:`` and ``=`` never end where ``:=`` or ``=>`` goes on: a refused value after ``:=`` is not
# retried as the value ``=$VAR`` after ``:``
_ASSIGNMENT_SEP = r"[ \t]*(?::=|=>|=(?!>)|:(?!=))[ \t]*"
# A value that ``assignment_value_is_secret`` refuses by its first characters (a reference:
# ``$VAR``, ``%VAR%``, ``{{ var }}``, ``<placeholder>``, ``os.environ``) is refused by the pattern
# itself, before the value is scanned: ``token=$token=$token=...`` would otherwise scan the rest
# of the run at every anchor.
_NOT_A_LITERAL = r"(?!\[REDACTED:|[$%{<]|os\.)"
_ASSIGNMENT_VALUE = (
    rf"(?:\"(?P<dq>{_NOT_A_LITERAL}[^\"\s\\]{{4,}})\"|'(?P<sq>{_NOT_A_LITERAL}[^'\s\\]{{4,}})'"
    rf"|(?P<s>{_NOT_A_LITERAL}[^\s\"'`,;(){{}}\[\]<>]{{6,}}))"
)
ASSIGNMENT = _anchored(
    "secret",
    _KEY_WORDS,
    rf"{_KEY_WORD_RE}(?![A-Za-z0-9_])[\"']?(?P<sep>{_ASSIGNMENT_SEP}| ){_ASSIGNMENT_VALUE}",
    gate=("secret", "token", "pass", "key", "credential"),
)
# The same without the bare-space separator, which only counts after a ``--flag`` key: where no
# key character precedes the key word, a match needing it would be rejected anyway ("the token
# expired" is prose), so the scan skips it early.
ASSIGNMENT_NO_FLAG = re.compile(
    rf"{_KEY_WORD_RE}(?![A-Za-z0-9_])[\"']?(?P<sep>{_ASSIGNMENT_SEP}){_ASSIGNMENT_VALUE}"
)

_NOT_A_VALUE = frozenset(
    ("none", "null", "nil", "true", "false", "undefined", "required", "optional", "string",
     "str", "bool", "int", "empty", "redacted", "hidden", "masked")
)  # fmt: skip
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_MASKED_RE = re.compile(r"[*xX•.#-]+")
_ENV_KEY_RE = re.compile(r"[\"']?[A-Z0-9_]+[\"']?")


def assignment_kind(key: str) -> str:
    low = key.lower()
    return "aws-secret-key" if "aws" in low and "secret" in low else "secret"


def assignment_value_is_secret(key: str, sep: str, value: str, quoted: bool) -> bool:
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


KEY_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")


def key_before(text: str, pos: int) -> str:
    start = pos
    while start > 0 and text[start - 1] in KEY_CHARS:
        start -= 1
    if start > 0 and text[start - 1] in "\"'":
        start -= 1
    return text[start:pos]


# Characters from rarest to most common in transcripts (code and prose), roughly.
_RARITY = "JQZXKVYqzjxWUOBGFHPMLNEIDCkTRSAv0123456789w_yb-:gp/fmcudh.lrsinotae"


def _rarity(char: str) -> int:
    found = _RARITY.find(char)
    return found if found >= 0 else len(_RARITY)


def _pivot_union(words: set[str]) -> re.Pattern[str]:
    """A search for any of ``words``, each keyed on its rarest character.

    sre scans for the characters that can start a match; keyed on ``e``, ``s`` or ``A`` it
    would try the alternation at a tenth of all positions. Keyed on ``J`` (``eyJ``) or ``k``
    (``sk-``), with a lookbehind for the characters before, it tries it ~3x less often.
    """
    kept = {w for w in words if not any(o != w and o in w for o in words)}  # sk- covers sk-ant-
    by_pivot: dict[str, list[str]] = {}
    for word in sorted(kept):
        i = min(range(len(word)), key=lambda k: (_rarity(word[k]), k))
        behind = f"(?<={re.escape(word[: i + 1])})" if i else ""
        by_pivot.setdefault(word[i], []).append(behind + re.escape(word[i + 1 :]))
    return re.compile(
        "|".join(
            re.escape(char) + (alts[0] if len(alts) == 1 else f"(?:{'|'.join(alts)})")
            for char, alts in sorted(by_pivot.items())
        )
    )


# One search each tells whether any case-sensitive rule, or any anchored rule, can match at all.
SCAN_GATE = _pivot_union({lit for rule in RULES for lit in rule.literals})
WORD_GATE = tuple(sorted({g for rule in (*RULES, ASSIGNMENT) for g in rule.gate}))
