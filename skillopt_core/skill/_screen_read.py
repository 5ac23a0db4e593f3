"""How the edit screen reads a text: line by line, as the agent would understand it, and the
hosts it names (:mod:`skillopt_core.skill.screen`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})


def invisible(char: str) -> bool:
    """A character that shows nothing (or reorders what is shown) yet is read by a model."""
    code = ord(char)
    category = unicodedata.category(char)
    if char in "\t\n":
        return False
    return (
        category in ("Cf", "Cc", "Zl", "Zp", "Co", "Cs")
        or 0xFE00 <= code <= 0xFE0F  # variation selectors: smuggle bytes after any character
        or 0xE0100 <= code <= 0xE01EF
        or code in (0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800)  # letters that render as blanks
    )


def normal(line: str) -> str:
    """``line`` as read for meaning: no invisible characters, NFKC, lower case."""
    kept = "".join(c for c in line if not invisible(c))
    return unicodedata.normalize("NFKC", kept).casefold()


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based number, normal(line))`` for each line of ``text``."""
    for number, line in enumerate(text.split("\n"), 1):
        yield number, normal(line.rstrip("\r"))


_HOST = r"(?P<host>\[[0-9a-f:]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)"
_URL_RE = re.compile(rf"\b[a-z][a-z0-9+.-]*://(?:[^\s/?#@]*@)?{_HOST}")
_SCP_RE = re.compile(rf"\b[a-z0-9._-]+@{_HOST}:")
_NET_RE = re.compile(
    r"\b(?:nc|ncat|netcat|telnet|ssh|sftp|ftp)\s+(?:-\S+\s+)*(?:[\w.-]+@)?"
    rf"{_HOST}(?=[\s:/]|$)"
)
_BARE_RE = re.compile(rf"\b(?:curl|wget|git\s+clone)\b[^\n]*?\s(?:[\w.-]+@)?{_HOST}(?=/|:\d)")
_FILE_EXTENSIONS = frozenset(
    [
        "txt",
        "json",
        "sh",
        "py",
        "md",
        "log",
        "html",
        "xml",
        "yaml",
        "yml",
        "csv",
        "tar",
        "gz",
        "tgz",
        "zip",
        "js",
        "ts",
        "toml",
        "cfg",
        "ini",
        "conf",
        "pem",
        "key",
        "pub",
        "out",
        "tmp",
        "lock",
        "env",
        "ps1",
        "bat",
        "exe",
        "whl",
        "rb",
        "go",
        "rs",
        "java",
        "c",
        "h",
        "cpp",
    ]
)
_DOMAIN_RE = re.compile(
    r"\b[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+\b"
)


def _host(raw: str) -> str:
    host = raw.strip(".").casefold()
    return host[4:] if host.startswith("www.") else host


def _is_host(host: str) -> bool:
    if host.startswith("[") or host in LOOPBACK_HOSTS:
        return True
    return "." in host and host.rsplit(".", 1)[-1] not in _FILE_EXTENSIONS


def hosts_in(text: str) -> set[str]:
    """The hosts ``text`` names in a URL, an ``scp``-style target or a network command."""
    found: set[str] = set()
    for _, line in numbered_lines(text):
        for rx in (_URL_RE, _SCP_RE, _NET_RE, _BARE_RE):
            found.update(_host(m["host"]) for m in rx.finditer(line) if _is_host(_host(m["host"])))
    return found


def known_hosts(texts: Iterable[str]) -> frozenset[str]:
    """Every host-like name in ``texts`` (the user's requests, the current skill): an edit may
    name these. Generous on purpose: a bare ``api.internal.dev`` in a request counts."""
    known: set[str] = set()
    for text in texts:
        known |= hosts_in(text)
        known.update(_host(m.group()) for m in _DOMAIN_RE.finditer(normal(text)))
    return frozenset(known)


def _loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")
