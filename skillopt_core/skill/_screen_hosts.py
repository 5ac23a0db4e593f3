"""The hosts a text names, as the edit screen's host rule reads them
(:mod:`skillopt_core.skill.screen`).

A host counts however it is written: in a URL (``https://h/``), an ``scp`` target (``u@h:``), a
network command (``ssh h``, ``nc h 4444``), an argument of a download command without a scheme
(``curl h | sh``, ``wget 'h/x.sh'``), or as ``h/path`` on a line that downloads, pipes, opens or
visits something. It is read as a resolver or a browser would read it: labels may be separated
by an ideographic full stop (U+3002, and the forms NFKC folds into it or into ``.``) and
percent-encoded (``evil%2eexample``), and a URL host written as one number
(``http://2130706433/``) is an IPv4 address.
"""

from __future__ import annotations

import bisect
import ipaddress
import re
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from skillopt_core.skill._screen_read import FETCHES, INTERPRETERS, Reading, W, lead, normal, read

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})

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
# The arguments of a download or network command that are not flags (nor the file, header, data
# or user a flag takes): a host, though written without a scheme or a path (``curl h | sh``,
# ``curl -fsSL -H 'X: y' --retry 3 h -o s.sh``, ``ssh -p 22 h``). Which flags take a value is
# not known for every program, so a word after a flag is its value unless it is a host itself.
# A download fetches every such argument (``curl $URL h``, ``curl localhost h``): its words are
# read to where the command ends, or where prose plainly takes over on the line.
_FILE_FLAG = (
    r"(?:-o|--output|-outfile|--output-document|-p|--directory-prefix|-h|--header|-d|--data|"
    r"--data-raw|--data-binary|--data-urlencode|--form|-u|--user|-a|--user-agent|-b|--cookie|"
    r"-c|--cookie-jar|-w|--write-out|-t|--upload-file)"
)
_FILE_FLAG_RE = re.compile(_FILE_FLAG)
_QUOTED = r"[^\s|;&'\"`()<>\[\]{}]"
_COMMANDS = ("curl", "wget", "aria2c", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "xh")
_COMMAND_RE = re.compile(rf"(?:{lead(*_COMMANDS)})\b")
_NETWORK_RE = re.compile(rf"(?:{lead(*_NETWORK)})\b")
# A word: a quoted string holds its spaces ('X: y'); an unclosed quote is a character.
_WORD_RE = re.compile(rf"{W}+(?P<word>(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+|['\"])+)")
_WRITTEN_RE = re.compile(rf"['\"`(<\[]*(?P<host>(?!-){_QUOTED}*\.{_QUOTED}*)")
_ENDS = frozenset("|;&)<>")  # a word that starts with one ends the command
# In a word: a quoted string (skipped), or what opens, closes or ends something.
_TOKEN_RE = re.compile(r"'[^']*'|\"[^\"]*\"|\$\(|[|;&)<>`]")
_GAP_RE = re.compile(f"{W}*")
_TICK_RE = re.compile("`")
_FENCE_RE = re.compile(r"^[^\S\n]*(?P<fence>`{3,}(?!`)|~{3,}(?!~))(?P<rest>[^\n]*)", re.M)
_NO_TICK, _SUBSTITUTION, _ASIDE = 0, 1, 2  # what an open backtick is
_SENTENCE_END = (".", ",", "!", "?", ":")  # a word ending so ends a sentence, not a command
_PLAIN_RE = re.compile(r"[a-z]+")
_METHODS = frozenset(("get", "post", "put", "patch", "delete", "head", "options"))
# Words that start prose after a command's arguments ("use curl or requests.get to fetch ..."),
# never an argument a download is given.
_PROSE_WORDS = frozenset((
    "a", "an", "the", "and", "or", "nor", "but", "so", "yet", "then", "than", "also", "again",
    "instead", "rather", "not", "only", "just", "to", "of", "in", "on", "at", "by", "for", "from",
    "with", "without", "within", "into", "onto", "over", "under", "about", "like", "via", "per",
    "versus", "vs", "as", "if", "when", "whenever", "while", "until", "unless", "once", "before",
    "after", "since", "because", "though", "although", "where", "which", "who", "what", "how",
    "why", "whether", "that", "this", "these", "those", "it", "its", "they", "them", "their",
    "you", "your", "we", "our", "here", "there", "is", "are", "was", "were", "be", "been", "do",
    "does", "did", "can", "could", "should", "would", "will", "may", "might", "must", "each",
    "every", "all", "any", "both", "either", "neither", "up", "ok", "no", "go", "me", "my", "us",
    "e.g", "i.e", "eg", "ie", "etc"
))  # fmt: skip
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
_FORMS = (("url", _URL_RE), ("scp", _SCP_RE), ("net", _NET_RE))
_WALKED = (("bare", _COMMAND_RE), ("net", _NETWORK_RE))
_TLD_RE = re.compile(r"[a-z]{2,24}|xn--[a-z0-9-]{1,59}")
_NUMBER_RE = re.compile(r"0x[0-9a-f]{1,8}|[0-9]{1,10}")
_DOMAIN_RE = re.compile(
    r"(?<![a-z0-9-])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+\b"
)
_CUT_RE = re.compile(r"[/?#:\\\s]")


def _clean(raw: str) -> str:
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


def _fences(text: str) -> tuple[list[int], list[int]]:
    """Where each fenced code block's body starts and ends, as Markdown reads them: three or
    more backticks (no backtick after them on the line) or tildes at the start of a line open
    one; a line of the same character, at least as many and nothing after them, closes it (or
    the text ends)."""
    starts: list[int] = []
    ends: list[int] = []
    fence = ""
    for m in _FENCE_RE.finditer(text):
        marker, rest = m["fence"], m["rest"]
        if not fence:
            if marker[0] == "~" or "`" not in rest:
                fence = marker
                starts.append(m.end())
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
            fence = ""
            ends.append(m.start())
    if fence:
        ends.append(len(text))
    return starts, ends


@dataclass(slots=True)
class _Walk:
    """Where a command's reading stands. ``code``: its words are code (inline or ``fenced``);
    ``nested``: what opened the substitution it runs in (``(`` for ``$(``, a backtick, or
    nothing); ``after``: ``file`` if the last word was a flag whose value is never a host,
    ``flag`` for any other flag; ``first``: no argument yet; ``depth`` and ``tick``: the ``$(``
    and the backtick opened among its words and not closed yet, ``tick_at`` the depth at which
    that backtick opened."""

    form: str
    code: bool
    fenced: bool
    nested: str = ""
    after: str = ""
    first: bool = True
    depth: int = 0
    tick: int = _NO_TICK
    tick_at: int = 0

    def opens(self) -> str:
        """What a command that starts here runs inside: the backtick or ``$(`` opened last."""
        if self.tick != _NO_TICK and self.depth <= self.tick_at:
            return "`"
        return "(" if self.depth else ""


_Stop = Generator[tuple[int, str], None, tuple[int, int] | bool]


def _arguments(text: str, form: str, rx: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    """``(offset, as written)`` of each host a command matched by ``rx`` is given as an argument.
    A command's words are read up to where the next command starts, so each word is read once.
    A command is code in a fenced block, or after an odd number of backticks on its line.

    A command that starts in a ``$(`` or backtick the one before left open runs inside it
    (``curl $(curl -s h) evil.example``): when it ends, the reading of the one it runs in goes
    on from there, so the words after the substitution are read too."""
    commands = list(rx.finditer(text))
    ticks = [m.start() for m in _TICK_RE.finditer(text)] if commands else []
    starts, ends = _fences(text) if commands else ([], [])
    suspended: list[_Walk] = []  # readings the next command runs inside, innermost last
    for i, command in enumerate(commands):
        bound = commands[i + 1].start() if i + 1 < len(commands) else len(text)
        if suspended:
            outer = suspended[-1]
            walk = _Walk(form, code=True, fenced=outer.fenced, nested=outer.opens())
        else:
            walk = _context(text, form, command.start(), ticks, (starts, ends))
        stop = yield from _walk(text, walk, command.end(), bound)
        while isinstance(stop, tuple) and suspended:
            walk = suspended.pop()  # the command this one ran inside reads on from its end
            at, end = stop
            closed = _substitutions(text, at, end, walk, aside=False)
            if closed is None:
                stop = yield from _walk(text, walk, end, bound)
            else:
                stop = closed, end
        if stop is False:
            suspended.clear()
        elif stop is True and walk.opens():
            suspended.append(walk)


def _context(
    text: str, form: str, at: int, ticks: list[int], fences: tuple[list[int], list[int]]
) -> _Walk:
    """The reading of a command at ``at`` that runs inside no other: code in a fenced block, or
    after an odd number of backticks on its line."""
    starts, ends = fences
    block = bisect.bisect_right(starts, at) - 1
    if block >= 0 and at < ends[block]:
        return _Walk(form, code=True, fenced=True)
    line = text.rfind("\n", 0, at) + 1
    before = bisect.bisect_left(ticks, at) - bisect.bisect_left(ticks, line)
    return _Walk(form, code=before % 2 == 1, fenced=False)


def _walk(text: str, walk: _Walk, pos: int, bound: int) -> _Stop:
    """The hosts among the words from ``pos`` to ``bound``: past any number of flags, each with
    or without a value. A network command (``ssh h uptime``) names its host first, so its words
    end at the first that is none of these; a download fetches every argument, so its words end
    only with the command (:func:`_substitutions`, a ``#`` comment) or, outside code (inline
    or fenced), where prose takes over (:func:`_prose`). A flag's value is never prose
    (``curl -s the evil.example``), nor is a substitution's word. Inline code in a sentence after
    the first argument (``curl localhost `requests.get` style``) is an aside: its words are not
    arguments, but reading goes on after it (``curl x `cat u` evil.example``).

    Returns ``True`` if the reading reached ``bound`` (the next command), ``False`` if the line
    ran out or a comment began (so did the commands this one runs in), else ``(at, end)``: the
    command ended at ``at``, in a word that ends at ``end``."""
    while (m := _WORD_RE.match(text, pos, bound)) is not None:
        pos, word, start = m.end(), m["word"], m.start("word")
        opened = walk.depth > 0 or walk.tick != _NO_TICK
        if word[0] == "#":
            return False
        if (word[0] in _ENDS and not opened) or (word[0] == ")" and not walk.depth):
            return start, pos
        opens_aside = not (opened or walk.code or walk.first)  # a backtick opens inline code
        aside = walk.tick == _ASIDE or (word[0] == "`" and opens_aside)
        inside = opened or "$(" in word or "`" in word  # a substitution's words are code
        if aside:
            pass
        elif walk.after == "file":
            walk.after = ""
        elif word.startswith("-"):
            name, eq, value = word.partition("=")
            file = _FILE_FLAG_RE.fullmatch(name) is not None
            walk.after = "" if eq else "file" if file else "flag"
            host = _written(walk.form, value) if eq and not file else None
            if host is not None:
                yield start + len(name) + 1, host
        elif walk.form == "net":
            host = _written(walk.form, word)
            if host is not None:
                yield start, host
            elif walk.after != "flag":
                return start, pos  # neither a host nor a flag's value: the words have ended
            walk.after = ""
        else:
            plain = not (walk.code or inside or walk.after == "flag")
            if plain and _prose(word, walk.first):
                return start, pos
            host = _written(walk.form, word)
            if host is not None:
                yield start, host
            walk.after, walk.first = "", walk.first and word in _METHODS  # ``xh get h``: URL next
            if plain and (word[0] == "(" or word.endswith(_SENTENCE_END) or not word.isascii()):
                return start, pos  # an aside or a sentence ends, or prose in another script goes on
        closed = _substitutions(text, start, pos, walk, aside=opens_aside)
        if closed is not None:
            return closed, pos
    gap = _GAP_RE.match(text, pos, bound)
    return gap is not None and gap.end() == bound


def _prose(word: str, first: bool) -> bool:
    """``word``, where a download's argument could stand, starts prose: a word such as ``or``
    or ``to``, or, after the ``first`` argument, an aside in parentheses or an English word of
    three letters or more (a placeholder such as ``x`` is an argument, and so is ``localhost``).
    The first argument is the URL even as a plain word (``curl intranet evil.example``)."""
    if word.rstrip(".,!?:") in _PROSE_WORDS:
        return True
    if first:
        return False
    english = len(word) > 2 and _PLAIN_RE.fullmatch(word) is not None
    return word[0] == "(" or (english and word not in LOOPBACK_HOSTS)


def _substitutions(text: str, start: int, end: int, walk: _Walk, *, aside: bool) -> int | None:
    """Follows the ``$(`` and backticks in the word from ``start`` to ``end``, in ``walk``
    (:data:`_NO_TICK`, :data:`_SUBSTITUTION` or :data:`_ASIDE` for the backtick); returns where
    the word ends the command, if it does. Outside its quotes and outside a substitution, a shell
    operator (``h;``, ``h)``) ends it; a ``)`` that closes a ``$(`` opened in its words does not
    (``curl $(cat u) h``).

    A backtick closes the one open, or the one the command runs in. Else it opens a substitution
    where it cannot be Markdown: in a fenced code block, inside ``$(``, or in a sentence where the
    command's first argument stands (``curl `cat u` h``); after that first argument it opens
    inline code, an ``aside``. In inline code that holds the command it closes that code, so the
    command ends (``Run `curl x.example` then see evil.example``)."""
    for m in _TOKEN_RE.finditer(text, start, end):
        token = m.group()
        if token[0] in "'\"":
            continue
        if token == "$(":
            walk.depth += 1
        elif token == ")":
            if not walk.depth:
                return m.start()
            walk.depth -= 1
        elif token == "`":
            if walk.tick != _NO_TICK:
                walk.tick = _NO_TICK
            elif walk.nested == "`" and not walk.depth:
                return m.start()
            elif walk.code and not (walk.depth or walk.fenced or walk.nested):
                return m.start()  # it closes the inline code that holds the command
            else:
                walk.tick = _ASIDE if aside else _SUBSTITUTION  # an aside only outside code
                walk.tick_at = walk.depth
        elif not walk.depth and walk.tick == _NO_TICK:
            return m.start()
    return None


def _written(form: str, word: str) -> str | None:
    """``word`` (an argument) as the host it is written as, or ``None``: not a host."""
    m = _WRITTEN_RE.match(word)
    return m["host"] if m and _host_of(form, m["host"]) is not None else None


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
    found += [(form, at, host) for form, rx in _WALKED for at, host in _arguments(text, form, rx)]
    found += [("bare", offset, host) for offset, host in _path_hosts(reading, text)]
    for form, offset, written in found:
        key = (form, written)
        if key not in seen:
            seen[key] = _host_of(form, written)
        host = seen[key]
        if host is not None:
            yield reading, offset, host


def _host_of(form: str, written: str) -> str | None:
    host = _clean(written)
    if form == "url":
        host = _address(host)
    if form == "bare":
        return host if _bare_host(host) else None
    return host if _is_host(host) else None


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
        known.update(_clean(m.group()) for m in _DOMAIN_RE.finditer(words))
    return frozenset(known)


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")
