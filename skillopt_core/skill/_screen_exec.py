"""What a text tells the agent to run without showing it: the edit screen's download-exec rule
(:mod:`skillopt_core.skill.screen`).

Code the user never sees comes from a *source*: a download (``curl``, ``wget``, ``iwr``...), a
decoder (``base64 -d``, ``xxd -r``, ``openssl base64 -d``, ``b64decode``) or escaped bytes
printed (``printf '\\x63\\x75'``, ``echo -e``, ``$'...'``). A logical line (continuations joined,
:mod:`._screen_read`) runs it when the source is

- piped into an interpreter that reads its program from stdin (``| sh``, ``| sudo bash -s``),
- substituted into one (``bash -c "$(curl ...)"``, ``eval "$(echo ... | base64 -d)"``,
  ``bash <<< $'\\x63...'``, ``exec(b64decode(...))``, ``$(curl ...)`` as a command), or
- saved to a file (``-o``, ``>``, ``tee``, its URL's name) that this line after it, or a later
  line, runs (``bash setup.sh``, ``./setup.sh``, ``chmod +x setup.sh``), in code or in prose.

Prose counts as well: "download the installer and run it", "pipe it into bash" after a download
on the same or the previous line.

Each pattern stays on one line and nests no unbounded repetition; the rule gathers offsets with
one scan per pattern and joins them by position, so it is linear in the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from skillopt_core.skill._screen_read import (
    FETCHES,
    INTERPRETERS,
    Reading,
    W,
    interpreters,
    lead,
    read,
)

_CALLS = (
    "urlopen", "downloadstring", "downloadfile", "requests.get", "uudecode", "b64decode",
    "b32decode", "b16decode", "a85decode", "b85decode", "unhexlify", "fromhex",
    "frombase64string", "decodebytes", "atob"
)  # fmt: skip
_LETTER = r"\w"
_WORD_END = r"\b"
_SOURCE_RE = re.compile(
    "|".join(
        [
            FETCHES,
            lead(*_CALLS, before=_LETTER, then=_WORD_END),  # base64.b64decode(...) too
            lead(
                *("base64", "base32", "basenc", "b64"),
                then=rf"(?:{W}+-[\w-]*){{0,6}}?{W}+(?:--decode|-[a-z]*d[a-z]*)\b",
            ),
            lead("xxd", then=rf"(?:{W}+-[\w-]*){{0,6}}?{W}+-[a-z]*r"),
            lead("openssl", then=rf"(?:{W}+\S+){{0,4}}?{W}+(?:-d|-a|-base64|base64)\b"),
            rf"\|{W}*rev\b",
            lead("tr", then=rf"(?:{W}+-\w+){{0,3}}{W}+['\"]?[a-z]-[a-z]"),
        ]
    )
)
"""A download or a decoder: what comes out of it is code no one has read."""
_PRINTER_RE = re.compile(lead("printf", "echo", "print", then=_WORD_END) + r"|\$'")
_ESCAPES_RE = re.compile(r"(?:\\(?:x[0-9a-f]{1,2}|u[0-9a-f]{4}|[0-7]{2,3})){2}")
_PIPE_RE = re.compile(
    rf"\|(?:{W}|`)*(?:sudo(?:{W}+(?:-u{W}+[^\s-]\S*|-\S+))*{W}+)?(?:(?:/usr)?/bin/)?"
    rf"(?:env(?:{W}+(?:-\S+|[^\s=-][^\s=]*=\S*))*{W}+)?"
    rf"(?P<interp>{INTERPRETERS}|source)\b(?![\-/]|\.\w)(?P<rest>[^|;&)`\n]*)"
)
_NOT_IN_A_WORD = r"[\w./-]"
_SUBSTITUTED_RE = re.compile(  # bash -c "$(...)", eval "$(...)", bash <<< $'...', . <(...)
    rf"(?:{interpreters(_NOT_IN_A_WORD)}|{lead('eval', 'source', 'exec', '.', before=_NOT_IN_A_WORD)})"
    rf"(?:{W}+(?:-[^\s$'\"<]\S*|/dev/stdin))*(?:{W}*<<<|{W}*<)?{W}*['\"]?(?P<open>\$\(|<\(|\$')"
)
_IN_A_NAME = r"[\w.]"
_CALL_RE = re.compile(  # exec(b64decode(...)), eval(atob(...)), iex(...)
    rf"(?:{lead('eval', 'exec', 'iex', 'invoke-expression', before=_IN_A_NAME)}){W}*\("
)
_BULLET_RE = re.compile(r"(?:[-*+]|\d+[.)])?")
_POWERSHELL_RE = re.compile(
    rf"(?:{lead('iex', 'invoke-expression')})\b{W}*(?:\({W}*)?(?:\({W}*)?"
    rf"(?:new-object{W}+\S*webclient|{FETCHES})"
)
_CODE_FLAGS = {  # the program comes from an argument: what is piped in is data
    "shell": {"-c"},
    "python": {"-c", "-m"},
    "powershell": {"-c", "-command", "-file", "-f", "-encodedcommand"},
    "other": {"-e", "-E", "-r", "-p", "--eval", "--print"},
}
_SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash")


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


# --- saved, then run ----------------------------------------------------------------------------

_SAVED_RE = re.compile(
    rf"(?:(?<!\S)(?:-o|--output|-outfile|--output-document)(?:{W}*={W}*|{W}+)|"
    rf"(?<![\d&>])>>?{W}*|(?<![\w.-])tee(?:{W}+-\S+)*{W}+)['\"]?(?P<file>[^\s'\"`;&|)]+)"
)
_URL_RE = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^\s'\"<>)`]*")
_BARE_URL_RE = re.compile(r"(?<![\w.%@/:-])[a-z0-9][\w%-]*(?:\.[\w%-]+)+(?::\d+)?/[^\s'\"<>)`|;&]*")
_SEGMENT_END_RE = re.compile(r"[|;&`\n]")
_PATH = r"[^\s'\"`;&|)<>]+"
_AT_COMMAND = r"[^\s&;|`('\"]"  # what may not stand before a command's name
_MODE = rf"{W}+\S+"
_RUN_RE = re.compile(  # bash setup.sh, . ./env.sh, chmod +x setup.sh
    rf"(?:{interpreters(_AT_COMMAND)}|{lead('source', '.', 'exec', before=_AT_COMMAND)}|"
    rf"{lead('chmod', before=_AT_COMMAND, then=_MODE)})"
    rf"(?:{W}+-\S+)*{W}+['\"]?(?P<path>{_PATH})|"
    rf"\./(?P<direct>{_PATH})|"  # ./setup.sh, ../bin/x
    rf"(?:&&|\|\||;|\$\(){W}*(?:sudo{W}+)?(?P<absolute>/{_PATH})"  # && /tmp/x.sh
)
_QUERY_RE = re.compile(r"[?#]")
_NOT_A_FILE = frozenset({"", "-", "null", "stdout", "stderr"})


def _name(path: str) -> str:
    return path.rstrip(".,:!?").rsplit("/", 1)[-1]


def _saved_names(text: str, start: int, end: int) -> set[str]:
    """The files a download or decoder saves between ``start`` and ``end`` (its segment): its
    ``-o`` target, a redirect or ``tee``, the last part of a URL or a path it is given."""
    names = {_name(m["file"]) for m in _SAVED_RE.finditer(text, start, end)}
    for rx in (_URL_RE, _BARE_URL_RE):
        names.update(_name(_QUERY_RE.split(m.group(), 1)[0]) for m in rx.finditer(text, start, end))
    return names - _NOT_A_FILE


# --- prose: "download it and run it", "pipe it into bash" ---------------------------------------

_DOWNLOAD_WORDS_RE = re.compile(
    lead("download", then=r"\w*") + "|" + lead("grab", "retrieve", then=_WORD_END)
)
_ADDRESS_RE = re.compile(r"://|(?<![\w.%@/:-])[a-z0-9][\w%-]*(?:\.[\w%-]+)+/")
_RUN_IT_RE = re.compile(
    rf"(?:{lead('run', 'execute', 'exec', 'launch', 'source', 'invoke', before=_LETTER)})"
    rf"(?:{W}+(?:it|them|this|that)|{W}+the{W}+(?:installer|"
    rf"(?:downloaded|fetched|saved|decoded){W}+(?:script|installer|file|binary|program|payload|"
    rf"output|result))s?)\b(?!{W}+(?:again|through|twice)\b)"
)
_PIPE_PROSE_RE = re.compile(
    rf"pipe(?<!\wpipe)[sd]?\b(?:{W}+\S+){{1,6}}?{W}+(?:(?:in)?to|through)(?:{W}|`)+"
    rf"(?:sudo(?:{W}+-\S+)*{W}+)?(?P<interp>{INTERPRETERS})\b(?![\-/]|\.\w)(?P<rest>[^|;&)`\n.,]*)"
)


def _sources(reading: Reading, downloads: list[re.Match[str]]) -> list[int]:
    """Offsets of every source: downloads, decoders, escapes after a printer on their line."""
    text = reading.joined
    found = [m.start() for m in downloads]
    escapes = [m.start() for m in _ESCAPES_RE.finditer(text)]
    if escapes:
        printers = [m.start() for m in _PRINTER_RE.finditer(text)]
        found += [at for at in escapes if _before_on_line(reading, printers, at + 1)]
    return sorted(found)


def _piped(reading: Reading, sources: list[int]) -> Iterable[int]:
    for m in _PIPE_RE.finditer(reading.joined):
        stdin = _reads_program_from_stdin(m["interp"], m["rest"])
        if stdin and _before_on_line(reading, sources, m.start()):
            yield m.start()


def _before_on_line(reading: Reading, offsets: list[int], pos: int) -> bool:
    """One of the sorted ``offsets`` lies before ``pos`` on its logical line."""
    i = bisect.bisect_left(offsets, pos)
    return i > 0 and offsets[i - 1] >= reading.logical_starts[reading.logical(pos)]


def _on_line(reading: Reading, offsets: list[int], line: int) -> bool:
    """One of the sorted ``offsets`` lies on logical line ``line``."""
    if line < 0:
        return False
    starts = reading.logical_starts
    i = bisect.bisect_left(offsets, starts[line])
    return i < len(offsets) and (line + 1 == len(starts) or offsets[i] < starts[line + 1])


def _substituted(reading: Reading, sources: list[int]) -> Iterable[int]:
    """Substitutions that run a source: the source lies inside the ``$( )``, ``<( )`` or
    ``$' '``, or in the statement a call opens (``exec(b64decode(...))``, up to a ``;``). Each
    closing character is searched for once for all the openings before it."""
    text = reading.joined
    closes: dict[str, int] = {}
    for start, at, close in _openings(reading):
        if closes.get(close, -1) < at:
            line_end = reading.next_logical(at)
            found = text.find(close, at, line_end)
            closes[close] = found if found >= 0 else line_end
        i = bisect.bisect_left(sources, start)
        if i < len(sources) and sources[i] < closes[close]:
            yield start
    for m in _POWERSHELL_RE.finditer(text):
        yield m.start()


def _openings(reading: Reading) -> list[tuple[int, int, str]]:
    """(where the command starts, the offset after its opening, the closing character) of each
    substitution that runs its content: given to an interpreter, ``eval`` or ``source``, called
    (``exec(``), or ``$(...)`` where a command goes (its output is run as one)."""
    text = reading.joined
    found = [
        (m.start(), m.end(), "'" if m["open"] == "$'" else ")")
        for m in _SUBSTITUTED_RE.finditer(text)
    ]
    found += [(m.start(), m.end(), ";") for m in _CALL_RE.finditer(text)]  # nested calls
    at = text.find("$(")
    while at >= 0:
        if _at_command(reading, at):
            found.append((at, at + 2, ")"))
        at = text.find("$(", at + 2)
    return sorted(found, key=lambda o: o[1])


def _at_command(reading: Reading, at: int) -> bool:
    """``$(`` at ``at`` stands where a command goes: first on its line (after a list bullet),
    or after ``;``, ``&``, ``|``, ``(``, a backtick or ``{`` (a quote may open before it)."""
    text = reading.joined
    start = reading.logical_starts[reading.logical(at)]
    i = at - 1 if at > start and text[at - 1] in "'\"" else at
    while i > start and text[i - 1] in " \t":
        i -= 1
    if i > start and text[i - 1] in ";&|(`{":
        return True
    return i - start < 16 and _BULLET_RE.fullmatch(text[start:i].strip()) is not None


def _saved_then_run(reading: Reading, downloads: list[re.Match[str]]) -> Iterable[int]:
    text = reading.joined
    runs = [
        (m.start(), 1, _name(m["path"] or m["direct"] or m["absolute"]))
        for m in _RUN_RE.finditer(text)
    ]
    if not runs:
        return
    events: list[tuple[int, int, set[str] | str]] = list(runs)
    for i, m in enumerate(downloads):
        bound = downloads[i + 1].start() if i + 1 < len(downloads) else len(text)
        end = _SEGMENT_END_RE.search(text, m.end(), bound)
        events.append((m.start(), 0, _saved_names(text, m.end(), end.start() if end else bound)))
    saved: set[str] = set()
    for pos, _, names in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(names, set):
            saved |= names
        elif names in saved:
            yield pos


def _prose(reading: Reading, sources: list[int]) -> Iterable[int]:
    """ "Download it and run it", "pipe it into bash": after a download (for a pipe, a URL
    will do) on the same line before it, or on the line above."""
    text = reading.joined
    if not (_RUN_IT_RE.search(text) or _PIPE_PROSE_RE.search(text)):
        return
    words = [m.start() for m in _DOWNLOAD_WORDS_RE.finditer(text)]
    downloads = sorted([*sources, *words])
    addresses = sorted([*downloads, *(m.start() for m in _ADDRESS_RE.finditer(text))])
    if not addresses:
        return
    told = [(m, rx) for rx in (_RUN_IT_RE, _PIPE_PROSE_RE) for m in rx.finditer(text)]
    previous: dict[int, int] = {}
    for m, rx in told:
        after = downloads
        if rx is _PIPE_PROSE_RE:
            if not _reads_program_from_stdin(m["interp"], m["rest"]):
                continue
            after = addresses  # a URL will do: "pipe https://... into bash"
        line = reading.logical(m.start())
        if line not in previous:
            previous[line] = _previous(reading, line)
        if _before_on_line(reading, after, m.start()) or _on_line(reading, after, previous[line]):
            yield m.start()


_NOT_BLANK_RE = re.compile(r"\S")


def _previous(reading: Reading, line: int) -> int:
    """The logical line above ``line`` that is not blank (-1: none)."""
    line -= 1
    while line >= 0 and not _NOT_BLANK_RE.search(reading.joined, *_bounds(reading, line)):
        line -= 1
    return line


def _bounds(reading: Reading, line: int) -> tuple[int, int]:
    starts = reading.logical_starts
    return starts[line], starts[line + 1] if line + 1 < len(starts) else len(reading.joined)


def download_runs(text: str) -> list[int]:
    """Lines that run what a download (or a decoder) brings: piped into an interpreter,
    substituted into a command, or saved and then run (on that line or a later one)."""
    reading = read(text)
    downloads = list(_SOURCE_RE.finditer(reading.joined))
    sources = _sources(reading, downloads)
    offsets = set(_prose(reading, sources))
    if sources:
        offsets.update(_piped(reading, sources))
        offsets.update(_substituted(reading, sources))
        offsets.update(_saved_then_run(reading, downloads))
    return sorted({reading.line(pos) for pos in offsets})
