"""What a line of an edit tells the agent to run or to send: the edit screen's command rules
(:mod:`skillopt_core.skill.screen`). Each function takes a text and yields the numbers of its
lines that do it; lines are read by :func:`~skillopt_core.skill._screen_read.numbered_lines`."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillopt_core.skill._screen_read import numbered_lines

# --- a download (or a decoded blob) run as code -----------------------------------------------

_FETCH = (
    r"(?:curl|wget|fetch|aria2c|iwr|irm|invoke-webrequest|invoke-restmethod|"
    r"base64\s+(?:-d|-D|--decode)|certutil)"
)
_SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash")
_INTERPRETERS = r"(?:sh|bash|zsh|dash|ksh|fish|csh|tcsh|ash|python[0-9.]*|perl|ruby|node|php|deno|bun|iex|invoke-expression|pwsh|powershell)"
_PIPE_RE = re.compile(
    rf"\b{_FETCH}\b[^\n]*?\|[\s`]*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:/usr)?/bin/)?(?:env\s+(?:\S+=\S+\s+)*)?"
    rf"(?P<interp>{_INTERPRETERS})\b(?![.\-/])(?P<rest>[^|;&)`\n]*)"
)
_CODE_FLAGS = {  # the program comes from an argument: what is piped in is data
    "shell": {"-c"},
    "python": {"-c", "-m"},
    "powershell": {"-c", "-command", "-file", "-f", "-encodedcommand"},
    "other": {"-e", "-E", "-r", "-p", "--eval", "--print"},
}


def _code_flags(interp: str) -> set[str]:
    if interp in _SHELLS:
        return _CODE_FLAGS["shell"]
    if interp.startswith("python"):
        return _CODE_FLAGS["python"]
    if interp in ("pwsh", "powershell"):
        return _CODE_FLAGS["powershell"]
    return _CODE_FLAGS["other"]


def _reads_program_from_stdin(interp: str, rest: str) -> bool:
    if interp in ("iex", "invoke-expression"):
        return True
    for token in rest.replace('"', " ").replace("'", " ").split():
        if token in ("-", "-s", "--", "/dev/stdin"):
            return True
        if token in _code_flags(interp):
            return False
        if not token.startswith("-"):
            # a script file (what is piped in is its input), or the prose after the command
            return not re.search(r"[./$]", token.rstrip(".,:!?"))
    return True


_SUBST_RE = re.compile(
    rf"(?:\b{_INTERPRETERS}|\beval|\bsource|\bexec|(?:^|[\s;&|])\.)\s+(?:-\S+\s+)*['\"]?"
    rf"(?:\$\(|<\()\s*{_FETCH}\b"
)
_PS_RE = re.compile(
    r"\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*new-object\s+\S*webclient\)?|"
    rf"{_FETCH}\b)"
)
_URL_PATH_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]*/(?P<file>[^\s/'\"<>)?#]+)")
_SAVED_RE = re.compile(
    r"\s(?:-o|--output|-outfile|--output-document)\s*=?\s*['\"]?(?P<file>[^\s'\";&|]+)"
)
_FETCH_RE = re.compile(rf"\b{_FETCH}\b")


def _fetched_names(line: str) -> set[str]:
    """The files a download on ``line`` saves (its ``-o`` target, its URL's last segment)."""
    fetch = _FETCH_RE.search(line)
    if fetch is None:
        return set()
    tail = line[fetch.start() :]
    files = [m["file"] for m in (*_SAVED_RE.finditer(tail), *_URL_PATH_RE.finditer(tail))]
    return {f.rsplit("/", 1)[-1] for f in files} - {"", "-", "null"}


def _runs(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:^|&&|;|\|\||\s)(?:sudo\s+)?(?:(?:{_INTERPRETERS}|source|\.|chmod\s+\S+)\s+(?:-\S+\s+)*"
        rf"(?:\S*/)?|\S*\./){re.escape(name)}(?![\w.-])"
    )


def download_runs(text: str) -> Iterator[int]:
    """Lines that run what a download (or a base64 decode) brings: piped into an interpreter,
    substituted into a command, or saved and then run (on that line or a later one)."""
    fetched: set[str] = set()
    for number, line in numbered_lines(text):
        pipes = _PIPE_RE.finditer(line)
        piped = any(_reads_program_from_stdin(m["interp"], m["rest"]) for m in pipes)
        names = _fetched_names(line)
        fetch = _FETCH_RE.search(line)
        after = line[fetch.end() :] if fetch else line
        ran = any(_runs(n).search(after) for n in names) or any(
            _runs(n).search(line) for n in fetched
        )
        fetched |= names
        if piped or ran or _SUBST_RE.search(line) or _PS_RE.search(line):
            yield number


# --- secrets sent or shown --------------------------------------------------------------------

# Secret material itself: files and variables that hold secrets. A topic word ("tokens",
# "cookies") is not: "include 'session cookie' in the answer" or "send the token in the
# Authorization header" are ordinary procedure, so topics count only with exfiltration verbs.
_MATERIAL_RE = re.compile(
    r"(?:\.env\b(?!\.?example|\.sample|\.template)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|~/\.ssh\b|"
    r"\.ssh/|\.aws/|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config|"
    r"\.kube/config|\bkubeconfig\b|/etc/shadow|\bprintenv\b|\benvironment variables\b|"
    r"\benv vars?\b|\bkeychain\b|\$\{?\w*(?:token|secret|key|passw\w*|credential\w*)\w*)"
)
_TOPIC_RE = re.compile(
    r"\b(?:credentials?|secrets?|api[ _-]?keys?|access[ _-]?keys?|private[ _-]?keys?|"
    r"passwords?|passwd|tokens?|cookies?|ssh keys?)\b"
)
_SEND_RE = re.compile(
    r"\bsend(?:s|ing)?\b|\bupload\w*|\bpost(?:s|ing)?\b|\bexfiltrat\w*|\bforward(?:s|ing)?\b|"
    r"\btransmit\w*|\be-?mail(?:s|ed|ing)?\b|\bleak\w*|\bbeacon\w*|\breport\w*\s+back\b|"
    r"\bshar(?:e|es|ing)\b|\bpaste\w*|\bscp\b|\brsync\b|\bnc\b|\bncat\b|\bnetcat\b|\bwebhook\w*|"
    r"\bpastebin\b|\bngrok\b|\bcurl\b[^\n]*?\s(?:-d|--data\S*|--form|--upload-file)(?=[\s@=])|"
    r"\bwget\b[^\n]*?--post-\w+"
)
_EXFIL_RE = re.compile(  # a topic word with one of these is a leak, whatever the context
    r"\bexfiltrat\w*|\bupload\w*|\be-?mail(?:s|ed|ing)?\b|\bleak\w*|\bbeacon\w*|"
    r"\breport\w*\s+back\b|\bshar(?:e|es|ing)\b[^\n]*\bwith\b|\bpaste\w*|\bpastebin\b|"
    r"\bwebhook\w*|\b(?:send|post|forward)\w*\b[^\n]*\bto\b"
)
_SHOW_RE = re.compile(
    r"\b(?:print|echo|cat|show|display|reveal|include|output|dump|paste|list|write|add|post)\b"
    r"[^\n]*?"
    r"\b(?:in|into|to)\s+(?:the\s+|your\s+|every\s+|each\s+|a\s+)?"
    r"(?:answer|reply|response|output|chat|message|summary|comment|commit|pr|pull request|issue|"
    r"log)s?\b"
)
_OWNED_TOPIC_RE = re.compile(
    rf"\b(?:values?|contents?)\s+of\s+(?:the\s+|your\s+|all\s+|any\s+)?(?:\w+\s+)?{_TOPIC_RE.pattern}|"
    rf"\b(?:real|actual|raw|full|user'?s|developer'?s|your)\s+(?:\w+\s+)?{_TOPIC_RE.pattern}"
)
_AUTH_RE = re.compile(r"\b(?:headers?|authorization|bearer|auth|authenticate|log\s*in|sign\s*in)\b")
_NEGATION_RE = re.compile(r"\b(?:never|not|no|avoid|without|refuse)\b|n't\b")
_NOT_A_NEGATION_RE = re.compile(r"\b(?:forget|fail|hesitate|neglect|skip|omit)\w*\b")
_CLAUSE_RE = re.compile(r"[.;!?](?:\s|$)")


def _verb(rx: re.Pattern[str], clause: str) -> bool:
    """``clause`` has a match of ``rx`` that no negation before it takes back."""
    for match in rx.finditer(clause):
        before = clause[: match.start()]
        if not _NEGATION_RE.search(before) or _NOT_A_NEGATION_RE.search(before):
            return True
    return False


def _leaks(clause: str) -> bool:
    auth = bool(_AUTH_RE.search(clause))
    if _MATERIAL_RE.search(clause) and not auth and _verb(_SEND_RE, clause):
        return True
    if _MATERIAL_RE.search(clause) and _verb(_SHOW_RE, clause):
        return True
    if _TOPIC_RE.search(clause) and not auth and _verb(_EXFIL_RE, clause):
        return True
    return bool(_OWNED_TOPIC_RE.search(clause)) and _verb(_SHOW_RE, clause)


def secret_leaks(text: str) -> Iterator[int]:
    """Lines that tell the agent to send secrets somewhere or show them in its output."""
    for number, line in numbered_lines(text):
        if any(_leaks(clause) for clause in _CLAUSE_RE.split(line)):
            yield number
