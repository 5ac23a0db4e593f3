"""The hosts a text names, as the edit screen's host rule reads them
(:mod:`skillopt_core.skill.screen`).

A host counts however it is written: in a URL (``https://h/``), an ``scp`` target (``u@h:``), a
network command (``ssh h``, ``nc h 4444``), an argument of a download command without a scheme
(``curl h | sh``, ``wget 'h/x.sh'``), or as ``h/path`` on a line that downloads, pipes, opens or
visits something. It is read as a resolver or a browser would read it: labels may be separated
by an ideographic full stop (U+3002, and the forms NFKC folds into it or into ``.``) and
percent-encoded (``evil%2eexample``), and a URL host written as one number
(``http://2130706433/``) is an IPv4 address.

Naming a host from how it is written is :mod:`._screen_names`; reading a command's arguments is
:mod:`._screen_arguments`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator

from skillopt_core.skill._screen_arguments import arguments, layout
from skillopt_core.skill._screen_names import LOOPBACK_HOSTS, clean, host_of, is_loopback
from skillopt_core.skill._screen_read import FETCHES, INTERPRETERS, Reading, W, lead, read

__all__ = ["LOOPBACK_HOSTS", "host_offsets", "hosts_in", "is_loopback", "known_hosts"]

_IDEOGRAPHIC_DOT_RE = re.compile(r"(?<=[a-z0-9%])\u3002(?=[a-z0-9%])")
_CHARS = r"(?:[a-z0-9_.-]|%[0-9a-f]{2})"
_HOST = rf"(?P<host>\[[0-9a-f:.]+\]|{_CHARS}+)"
# Each pattern opens with a literal (the scheme's "://", the "@" of "user@host:", a command's
# name) so that a scan skips to where it can match.
_URL_RE = re.compile(rf"://(?:[^\s/?#@]*@)?{_HOST}")
_SCP_RE = re.compile(rf"@(?<=[\w.%-]@){_HOST}:")
_NETWORK = ("nc", "ncat", "netcat", "telnet", "ssh", "sftp", "ftp")
_NET_RE = re.compile(
    rf"(?:{lead(*_NETWORK)})(?:{W}+-\S+)*{W}+"
    rf"(?:[\w.%-]+@)?{_HOST}(?=[\s:/]|$)",
    re.M,
)
_CLONE = rf"{W}+clone\b"
_WORD_END = r"\b"
_FETCH_RE = re.compile(f"{FETCHES}|{lead('git', then=_CLONE)}")
_COMMANDS = ("curl", "wget", "aria2c", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "xh")
_COMMAND_RE = re.compile(rf"(?:{lead(*_COMMANDS)})\b")
_NETWORK_RE = re.compile(rf"(?:{lead(*_NETWORK)})\b")
# A host followed by a path or a port: the labels' dots may be written %2e.
_LABEL = r"(?:[a-z0-9_-]|%(?!2e)[0-9a-f]{2})+"
_PATH_HOST_RE = re.compile(
    rf"(?<![\w.%@/:\\-])(?:[\w.%-]+@)?(?P<host>{_LABEL}(?:(?:\.|%2e){_LABEL})+)\.?(?=/|:\d)"
)
_OPENING = ("pipe", "pipes", "piped", "piping", "visit", "browse", "open", "navigate")
_OPENS_RE = re.compile(  # a line that downloads, pipes, opens or visits something
    f"{_FETCH_RE.pattern}|{lead('download', then=r'[a-z]*')}|{lead(*_OPENING, then=_WORD_END)}|"
    rf"\|{W}*(?:sudo{W}+)?{INTERPRETERS}\b"
)
_FORMS = (("url", _URL_RE), ("scp", _SCP_RE), ("net", _NET_RE))
_WALKED = (("bare", _COMMAND_RE), ("net", _NETWORK_RE))
_DOMAIN_RE = re.compile(
    r"(?<![a-z0-9-])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+\b"
)


def _path_hosts(reading: Reading, text: str) -> Iterator[tuple[int, str]]:
    """``host/path`` on a logical line that downloads, pipes, opens or visits something."""
    paths = [(m.start(), m["host"]) for m in _PATH_HOST_RE.finditer(text)]
    if not paths:
        return
    opens = [m.start() for m in _OPENS_RE.finditer(text)]
    starts = reading.logical_starts
    for offset, host in paths:
        line = reading.logical(offset)
        i = bisect.bisect_left(opens, starts[line])
        if i < len(opens) and (line + 1 == len(starts) or opens[i] < starts[line + 1]):
            yield offset, host


def host_offsets(raw: str) -> Iterator[tuple[Reading, int, str]]:
    """``(reading, offset, host)`` for each host ``raw`` names (offsets in ``reading``)."""
    reading = read(raw)
    text = reading.joined
    if "\u3002" in text:
        text = _IDEOGRAPHIC_DOT_RE.sub(".", text)
    seen: dict[tuple[str, str], str | None] = {}  # (form, as written) -> host, or None: not one
    found = [(form, m.start(), m["host"]) for form, rx in _FORMS for m in rx.finditer(text)]
    walked = [(form, list(rx.finditer(text))) for form, rx in _WALKED]
    if any(commands for _, commands in walked):
        where = layout(text)  # once for both forms
        found += [
            (form, at, host)
            for form, commands in walked
            for at, host in arguments(text, form, commands, where)
        ]
    found += [("bare", offset, host) for offset, host in _path_hosts(reading, text)]
    for form, offset, written in found:
        key = (form, written)
        if key not in seen:
            seen[key] = host_of(form, written)
        host = seen[key]
        if host is not None:
            yield reading, offset, host


def hosts_in(text: str) -> set[str]:
    """The hosts ``text`` names in a URL, an ``scp``-style target, a network command or a
    download written without a scheme."""
    return {host for _, _, host in host_offsets(text)}


def known_hosts(texts: Iterable[str]) -> frozenset[str]:
    """Every host-like name in ``texts`` (the user's requests, the current skill): an edit may
    name these. Generous on purpose: a bare ``api.internal.dev`` in a request counts."""
    known: set[str] = set()
    for text in texts:
        known |= hosts_in(text)
        words = read(text).text
        if "\u3002" in words:
            words = _IDEOGRAPHIC_DOT_RE.sub(".", words)
        known.update(clean(m.group()) for m in _DOMAIN_RE.finditer(words))
    return frozenset(known)
