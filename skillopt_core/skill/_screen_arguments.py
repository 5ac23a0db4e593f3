"""Reading a download or network command's arguments, for the edit screen's host rule
(:mod:`skillopt_core.skill._screen_hosts`): which of its words name a host, past flags and their
values, through ``$(`` and backtick substitutions, in code or in a sentence, up to where the
command ends or prose takes over. Each word is read once, so reading is linear in the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass

from skillopt_core.skill._screen_names import LOOPBACK_HOSTS, written
from skillopt_core.skill._screen_read import W

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
# A word: a quoted string holds its spaces ('X: y'); an unclosed quote is a character.
_WORD_RE = re.compile(rf"{W}+(?P<word>(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+|['\"])+)")
_ENDS = frozenset("|;&)<>")  # a word that starts with one ends the command
# In a word: a quoted string (skipped), or what opens, closes or ends something.
_TOKEN_RE = re.compile(r"'[^']*'|\"[^\"]*\"|\$\(|[|;&)<>`]")
_GAP_RE = re.compile(f"{W}*")
_TICK_RE = re.compile("`")
_NEWLINE_RE = re.compile("\n")
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
    ``flag`` for any other flag; ``first``: no argument yet; ``named``: a network command has
    named its host; ``depth`` and ``tick``: the ``$(`` and the backtick opened among its words
    and not closed yet, ``tick_at`` the depth at which that backtick opened."""

    form: str
    code: bool
    fenced: bool
    nested: str = ""
    after: str = ""
    first: bool = True
    named: bool = False
    depth: int = 0
    tick: int = _NO_TICK
    tick_at: int = 0

    def opens(self) -> str:
        """What a command that starts here runs inside: the backtick or ``$(`` opened last."""
        if self.tick != _NO_TICK and self.depth <= self.tick_at:
            return "`"
        return "(" if self.depth else ""


_Stop = Generator[tuple[int, str], None, tuple[int, int] | bool]


@dataclass(frozen=True)
class Layout:
    """Where a text's backticks, line breaks and fenced code blocks are: found once per text
    (:func:`layout`) for every command of every form read in it, never searched again per
    command (a search back to the line's start for each would be quadratic on a long line)."""

    ticks: list[int]
    breaks: list[int]
    fence_starts: list[int]
    fence_ends: list[int]

    def context(self, form: str, at: int) -> _Walk:
        """The reading of a command at ``at`` that runs inside no other: code in a fenced block,
        or after an odd number of backticks on its line."""
        block = bisect.bisect_right(self.fence_starts, at) - 1
        if block >= 0 and at < self.fence_ends[block]:
            return _Walk(form, code=True, fenced=True)
        row = bisect.bisect_left(self.breaks, at)
        line = self.breaks[row - 1] + 1 if row else 0
        before = bisect.bisect_left(self.ticks, at) - bisect.bisect_left(self.ticks, line)
        return _Walk(form, code=before % 2 == 1, fenced=False)


def layout(text: str) -> Layout:
    ticks = [m.start() for m in _TICK_RE.finditer(text)]
    breaks = [m.start() for m in _NEWLINE_RE.finditer(text)] if ticks else []
    return Layout(ticks, breaks, *_fences(text))


def arguments(
    text: str, form: str, commands: Sequence[re.Match[str]], where: Layout
) -> Iterator[tuple[int, str]]:
    """``(offset, as written)`` of each host one of ``commands`` (of ``form``, found in
    ``text``, in order) is given as an argument. A command's words are read up to where the next
    command starts, so each word is read once.

    A command that starts in a ``$(`` or backtick the one before left open runs inside it
    (``curl $(curl -s h) evil.example``): when it ends, the reading of the one it runs in goes
    on from there, so the words after the substitution are read too."""
    suspended: list[_Walk] = []  # readings the next command runs inside, innermost last
    for i, command in enumerate(commands):
        bound = commands[i + 1].start() if i + 1 < len(commands) else len(text)
        if suspended:
            outer = suspended[-1]
            walk = _Walk(form, code=True, fenced=outer.fenced, nested=outer.opens())
        else:
            walk = where.context(form, command.start())
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


def _walk(text: str, walk: _Walk, pos: int, bound: int) -> _Stop:
    """The hosts among the words from ``pos`` to ``bound``: past any number of flags, each with
    or without a value. A network command (``ssh h uptime``) names its host first, so its words
    end at the first that is none of these, nor a substitution's word (its flags are not the
    command's), nor a substitution before the host (``ssh $(cat o) h``), which may be a flag's
    whole value (``ssh -i $(cat k) h``); after the host such a word is the remote command. A
    download fetches every argument, so its words end only with the command
    (:func:`_substitutions`, a ``#`` comment) or, outside code (inline or fenced), where prose
    takes over (:func:`_prose`). A flag's value is never prose
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
        elif opened and walk.form == "net":  # in a substitution: a flag there is not the command's
            host = written(walk.form, word)
            if host is not None:
                yield start, host
        elif walk.after == "file":
            walk.after = ""
        elif word.startswith("-"):
            name, eq, value = word.partition("=")
            file = _FILE_FLAG_RE.fullmatch(name) is not None
            walk.after = "" if eq else "file" if file else "flag"
            host = written(walk.form, value) if eq and not file else None
            if host is not None:
                yield start + len(name) + 1, host
        elif walk.form == "net":
            host = written(walk.form, word)
            if host is not None:
                walk.named = True
                yield start, host
            elif walk.after != "flag" and (walk.named or not inside):
                return start, pos  # neither a host nor a flag's value: the words have ended
            walk.after = ""
        else:
            plain = not (walk.code or inside or walk.after == "flag")
            if plain and _prose(word, walk.first):
                return start, pos
            host = written(walk.form, word)
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
