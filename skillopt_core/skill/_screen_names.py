"""Naming a host from how it is written, for the edit screen's host rule
(:mod:`skillopt_core.skill._screen_hosts`): what a written name resolves to (percent-decoded,
folded, without ``user@``, port or path) and whether it is a host at all, not a file or a version.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote

from skillopt_core.skill._screen_read import normal

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})

_QUOTED = r"[^\s|;&'\"`()<>\[\]{}]"
_WRITTEN_RE = re.compile(rf"['\"`(<\[]*(?P<host>(?!-){_QUOTED}*\.{_QUOTED}*)")
_FILE_EXTENSIONS = frozenset((
    "txt", "json", "sh", "py", "md", "log", "html", "htm", "xml", "yaml", "yml", "csv", "tsv",
    "tar", "gz", "tgz", "bz2", "xz", "zst", "zip", "7z", "rar", "js", "mjs", "cjs", "ts", "tsx",
    "jsx", "toml", "cfg", "ini", "conf", "pem", "key", "crt", "pub", "out", "tmp", "lock", "env",
    "ps1", "bat", "cmd", "exe", "dll", "so", "dylib", "whl", "egg", "rb", "go", "rs", "java",
    "kt", "c", "h", "cpp", "hpp", "cs", "swift", "php", "pl", "lua", "sql", "db", "sqlite", "pdf",
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bin", "iso", "img", "deb", "rpm", "dmg",
    "msi", "apk", "jar", "war", "class", "pyc", "ipynb", "parquet", "pkl", "npy", "css", "scss",
    "vue", "tf", "hcl", "proto", "patch", "diff", "bak", "orig"
))  # fmt: skip
_TLD_RE = re.compile(r"[a-z]{2,24}|xn--[a-z0-9-]{1,59}")
_NUMBER_RE = re.compile(r"0x[0-9a-f]{1,8}|[0-9]{1,10}")
_CUT_RE = re.compile(r"[/?#:\\\s]")


def clean(raw: str) -> str:
    """``raw`` as the host it names: percent-decoded, folded, after any ``user@``, without a
    port, path or trailing dot, and without ``www.``."""
    if raw.startswith("["):
        return raw
    host = raw
    for _ in range(2):
        if "%" in host:
            host = unquote(host)
    host = normal(host).replace("\u3002", ".").rsplit("@", 1)[-1]
    host = _CUT_RE.split(host, maxsplit=1)[0].strip(".")
    return host[4:] if host.startswith("www.") else host


def _address(host: str) -> str:
    """A URL host written as one number (``2130706433``, ``0x7f000001``): its dotted form."""
    if not _NUMBER_RE.fullmatch(host):
        return host
    try:
        value = int(host, 16 if host.startswith("0x") else 8 if host[0] == "0" else 10)
    except ValueError:
        return host
    return str(ipaddress.IPv4Address(value)) if value <= 0xFFFFFFFF else host


def _is_host(host: str) -> bool:
    if host.startswith("[") or host in LOOPBACK_HOSTS:
        return True
    return "." in host and host.rsplit(".", 1)[-1] not in _FILE_EXTENSIONS


def _bare_host(host: str) -> bool:
    """``host``, written without a scheme, is a host name (``evil.example.com``) or an IPv4
    address, not a file (``report.pdf``) or a version (``v1.2``)."""
    if "=" in host:
        return False  # an assignment (``xh post h name=a.b``), not a name
    labels = host.split(".")
    if len(labels) == 4 and all(label.isdigit() for label in labels):
        return True
    return (
        len(labels) > 1
        and all(labels)
        and _TLD_RE.fullmatch(labels[-1]) is not None
        and labels[-1] not in _FILE_EXTENSIONS
    )


def written(form: str, word: str) -> str | None:
    """``word`` (an argument) as the host it is written as, or ``None``: not a host."""
    m = _WRITTEN_RE.match(word)
    return m["host"] if m and host_of(form, m["host"]) is not None else None


def host_of(form: str, written: str) -> str | None:
    host = clean(written)
    if form == "url":
        host = _address(host)
    if form == "bare":
        return host if _bare_host(host) else None
    return host if _is_host(host) else None


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")
