"""What a line of an edit tells the agent to send or show: the edit screen's secret rule
(:mod:`skillopt_core.skill.screen`); the download rule is :mod:`._screen_exec`. Lines are read by
:func:`~skillopt_core.skill._screen_read.read`, and only the (logical) lines that name a secret
or a secret's topic are read clause by clause, each clause with a bounded number of searches."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from skillopt_core.skill._screen_read import lead, read

# --- secrets sent or shown --------------------------------------------------------------------

# Secret material itself: files and variables that hold secrets. A topic word ("tokens",
# "cookies") is not: "include 'session cookie' in the answer" or "send the token in the
# Authorization header" are ordinary procedure, so topics count only with exfiltration verbs.
_WORD_END = r"\b"
_MATERIAL_RE = re.compile(  # each alternative opens with a literal: a scan skips to it
    "|".join(
        [
            r"\.env\b(?!\.?example|\.sample|\.template)",
            lead("id_", before=r"\w", then=r"(?:rsa|dsa|ecdsa|ed25519)\b"),
            r"~/\.ssh\b|\.ssh/|\.aws/|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|"
            r"\.docker/config|\.kube/config|/etc/shadow",
            lead(
                *("kubeconfig", "printenv", "environment variables", "env var", "env vars"),
                *("keychain",),
                before=r"\w",
                then=_WORD_END,
            ),
            r"\$\{?\w*(?:token|secret|key|passw\w*|credential\w*)\w*",
        ]
    )
)
_TOPICS = (
    "credential", "credentials", "secret", "secrets", "password", "passwords", "passwd", "token",
    "tokens", "cookie", "cookies"
)  # fmt: skip
_TOPIC_RE = re.compile(
    "|".join(
        [
            lead(*_TOPICS, "ssh key", "ssh keys", before=r"\w", then=_WORD_END),
            lead("api", "access", "private", before=r"\w", then=r"[ _-]?keys?\b"),
        ]
    )
)
_SEND_RE = re.compile(
    r"\bsend(?:s|ing)?\b|\bupload\w*|\bpost(?:s|ing)?\b|\bexfiltrat\w*|\bforward(?:s|ing)?\b|"
    r"\btransmit\w*|\be-?mail(?:s|ed|ing)?\b|\bleak\w*|\bbeacon\w*|\breport\w*\s+back\b|"
    r"\bshar(?:e|es|ing)\b|\bpaste\w*|\bscp\b|\brsync\b|\bnc\b|\bncat\b|\bnetcat\b|\bwebhook\w*|"
    r"\bpastebin\b|\bngrok\b"
)
_CURL_RE = re.compile(r"\bcurl\b")
_CURL_DATA_RE = re.compile(r"\s(?:-d|--data\S*|--form|--upload-file)(?=[\s@=])")
_WGET_RE = re.compile(r"\bwget\b")
_WGET_POST_RE = re.compile(r"--post-\w+")
_EXFIL_RE = re.compile(  # a topic word with one of these is a leak, whatever the context
    r"\bexfiltrat\w*|\bupload\w*|\be-?mail(?:s|ed|ing)?\b|\bleak\w*|\bbeacon\w*|"
    r"\breport\w*\s+back\b|\bpaste\w*|\bpastebin\b|\bwebhook\w*"
)
_SHARE_RE = re.compile(r"\bshar(?:e|es|ing)\b")
_WITH_RE = re.compile(r"\bwith\b")
_SEND_TO_RE = re.compile(r"\b(?:send|post|forward)\w*\b")
_TO_RE = re.compile(r"\bto\b")
_SHOW_VERB_RE = re.compile(
    r"\b(?:print|echo|cat|show|display|reveal|include|output|dump|paste|list|write|add|post)\b"
)
_SHOWN_IN_RE = re.compile(
    r"\b(?:in|into|to)\s+(?:the\s+|your\s+|every\s+|each\s+|a\s+)?"
    r"(?:answer|reply|response|output|chat|message|summary|comment|commit|pr|pull request|issue|"
    r"log)s?\b"
)
_OWNED_TOPIC_RE = re.compile(
    rf"\b(?:values?|contents?)\s+of\s+(?:the\s+|your\s+|all\s+|any\s+)?(?:\w+\s+)?(?:{_TOPIC_RE.pattern})|"
    rf"\b(?:real|actual|raw|full|user'?s|developer'?s|your)\s+(?:\w+\s+)?(?:{_TOPIC_RE.pattern})"
)
_AUTH_RE = re.compile(r"\b(?:headers?|authorization|bearer|auth|authenticate|log\s*in|sign\s*in)\b")
_NEGATION_RE = re.compile(r"\b(?:never|not|no|avoid|without|refuse)\b|n't\b")
_NOT_A_NEGATION_RE = re.compile(r"\b(?:forget|fail|hesitate|neglect|skip|omit)\w*\b")
_CLAUSE_RE = re.compile(r"[.;!?](?:\s|$)")
_NAMED_RE = re.compile(rf"{_MATERIAL_RE.pattern}|{_TOPIC_RE.pattern}")
_ANY_VERB_RE = re.compile(
    rf"{_SEND_RE.pattern}|{_EXFIL_RE.pattern}|{_SHOW_VERB_RE.pattern}|{_SEND_TO_RE.pattern}|"
    r"\bcurl\b|\bwget\b"
)

Verb = tuple[re.Pattern[str], re.Pattern[str] | None]
"""A verb, and what must follow it somewhere later in the clause (``None``: nothing)."""
_SENDS: tuple[Verb, ...] = ((_SEND_RE, None), (_CURL_RE, _CURL_DATA_RE), (_WGET_RE, _WGET_POST_RE))
_EXFILTRATES: tuple[Verb, ...] = ((_EXFIL_RE, None), (_SHARE_RE, _WITH_RE), (_SEND_TO_RE, _TO_RE))
_SHOWS: tuple[Verb, ...] = ((_SHOW_VERB_RE, _SHOWN_IN_RE),)


def _verb(verbs: tuple[Verb, ...], clause: str) -> bool:
    """``clause`` has one of ``verbs`` (followed by what it needs) that no negation before it
    takes back. A verb is taken back from the first negation on, until a word that undoes it
    ("never forget to"): only the first verb before the negation and the first after the undoing
    word need to be tried, one search each."""
    end = len(clause) + 1
    negation, undone = _NEGATION_RE.search(clause), _NOT_A_NEGATION_RE.search(clause)
    negated_from = negation.end() if negation else end
    undone_from = undone.end() if undone else end
    for verb, then in verbs:
        for found in (verb.search(clause), verb.search(clause, undone_from)):
            if found is None or negated_from <= found.start() < undone_from:
                continue
            if then is None or then.search(clause, found.end()):
                return True
    return False


def _leaks(clause: str) -> bool:
    auth = bool(_AUTH_RE.search(clause))
    if _MATERIAL_RE.search(clause) and not auth and _verb(_SENDS, clause):
        return True
    if _MATERIAL_RE.search(clause) and _verb(_SHOWS, clause):
        return True
    if _TOPIC_RE.search(clause) and not auth and _verb(_EXFILTRATES, clause):
        return True
    return bool(_OWNED_TOPIC_RE.search(clause)) and _verb(_SHOWS, clause)


def secret_leaks(text: str) -> Iterator[int]:
    """Lines that tell the agent to send secrets somewhere or show them in its output."""
    reading = read(text)
    verbs = [m.start() for m in _ANY_VERB_RE.finditer(reading.joined)]
    m = _NAMED_RE.search(reading.joined) if verbs else None
    while m is not None:
        start, line = reading.logical_line(reading.logical(m.start()))
        verb = bisect.bisect_left(verbs, start)
        has_verb = verb < len(verbs) and verbs[verb] < start + len(line)
        if has_verb and any(_leaks(clause) for clause in _CLAUSE_RE.split(line)):
            yield reading.line(start)
        m = _NAMED_RE.search(reading.joined, reading.next_logical(m.start()))


# --- secrets written ----------------------------------------------------------------------------

# A well-known placeholder or default written as a credential's value is no secret:
# ``DB_PASSWORD=postgres pytest -q``, ``postgres://postgres:postgres@localhost/test``,
# ``API_KEY=your_api_key_here``. Such a value (whole: up to a quote, a space or the end of the
# argument) is masked before the redaction rules read the line; anything else they redact is a
# secret. Words are joined by ``-``/``_`` only, so no split of a word is ever tried twice.
_DEFAULT_WORDS = (
    r"(?:postgres(?:ql)?|mysql|mariadb|mongo(?:db)?|redis|root|admin|administrator|guest|user|"
    r"username|pass|passwd|password|pwd|pw|secret|token|key|api|app|db|changeme|changeit|"
    r"example|sample|test|testing|tests|dummy|fake|mock|placeholder|default|demo|dev|local|"
    r"localhost|foo|bar|baz|foobar|qwerty|letmein|my|your|here|none|xxx+)"
)
_DEFAULT_VALUE_RE = re.compile(
    rf"(?P<sep>[=:][ \t]*)(?P<q>[\"']?)(?:{_DEFAULT_WORDS}(?:[-_]{_DEFAULT_WORDS}){{0,3}}\d{{0,3}})"
    r"(?P=q)(?=[\s\"'`;,&|)\]}@/]|$)",
    re.I | re.M,
)


def _stand_in(m: re.Match[str]) -> str:
    """A value no redaction rule takes: ``***``, or nothing for a URL's password (``u:@h``)."""
    url_password = m.string.startswith("@", m.end())
    return f"{m['sep']}{m['q']}{'' if url_password else '***'}{m['q']}"


def placeholder_credentials_masked(raw: str) -> str:
    """``raw`` with each placeholder or default credential value masked."""
    return _DEFAULT_VALUE_RE.sub(_stand_in, raw)
