"""Text as Rich prints it where Rich adds nothing to it, without importing Rich.

Importing Rich costs a piped `skillopt-sleep harvest` about 30 ms of its start-up, for one summary
table. Where Rich would print no colour, style or cursor movement (not a terminal, none forced by
``FORCE_COLOR`` or ``TTY_COMPATIBLE``, UTF-8, POSIX, outside Jupyter) and the text is plain ASCII,
these functions give the very characters it prints; otherwise they answer None and the caller
prints with Rich. ``tests/harvest/test_startup_imports.py`` holds them to Rich's own output.
"""

from __future__ import annotations

import builtins
import itertools
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TextIO

_WORD = re.compile(r"\s*\S+\s*")  # a word with the spaces around it, as Rich splits lines


def may_be_terminal(stream: TextIO) -> bool:
    """False only when a Rich console on ``stream`` would certainly find no terminal there."""
    if "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return True  # left to Rich's own judgement


def plain_width(stream: TextIO) -> int | None:
    """The width a Rich console on ``stream`` wraps at, when it would print plain characters
    there; None when it could print anything else (see the module's doc)."""
    if sys.platform == "win32" or hasattr(builtins, "get_ipython") or may_be_terminal(stream):
        return None
    if not (getattr(stream, "encoding", None) or "utf-8").lower().startswith("utf"):
        return None  # Rich draws ASCII boxes then
    columns = os.environ.get("COLUMNS")
    if columns is not None:  # Rich takes digits as the width; anything else is left to Rich
        width = int(columns) if columns.isascii() and columns.isdigit() else 0
        return width or None
    for fd in _std_fds():  # Rich asks stdin, stdout, stderr in turn, whichever it prints to
        try:
            return os.get_terminal_size(fd).columns or 80
        except (AttributeError, ValueError, OSError):
            continue
    return 80


def _std_fds() -> Iterator[int]:
    """The descriptors of the interpreter's own standard streams, as Rich finds them."""
    for stream, fd in ((sys.__stdin__, 0), (sys.__stdout__, 1), (sys.__stderr__, 2)):
        try:
            yield stream.fileno()  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            yield fd


def is_plain(text: str) -> bool:
    """Whether Rich prints ``text`` (markup escaped) as it is: printable ASCII, no tab or newline,
    no bracket or backslash (markup and its escapes)."""
    return text.isascii() and text.isprintable() and "[" not in text and "\\" not in text


def printed(text: str, width: int) -> str:
    """What ``Console.print(text)`` writes at ``width`` for plain ``text``: words wrapped, a word
    longer than a line folded across lines, each line cropped and ended by a newline."""
    lines = (_rstrip_end(piece, width)[:width] for piece in _pieces(text, width, fold=True))
    return "".join(f"{line}\n" for line in lines)


def simple_head_table(
    title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]
) -> str | None:
    """What Rich prints for ``Table(title=title, box=box.SIMPLE_HEAD, padding=0)`` of plain
    ``headers`` and ``rows`` whose columns are ``min_width=max_width=widths[i]`` (the first
    left-justified, the others right), on a console it fits (``sum(widths) + len(widths) + 1``
    columns at most); None when a word is wider than its column or the title than the table."""
    inner = sum(widths) + len(widths) - 1
    if len(title.rstrip()) > inner + 2:
        return None
    grid = [_row(headers, widths, bottom=True), *(_row(row, widths, bottom=False) for row in rows)]
    if any(row is None for row in grid):
        return None
    spare = inner + 2 - len(title.rstrip())
    lines = [" " * (spare // 2) + title.rstrip() + " " * (spare - spare // 2)] if title else []
    lines.append(" " * (inner + 2))
    for at, row in enumerate(grid):
        lines.extend(f" {' '.join(cells)} " for cells in zip(*row, strict=True))  # type: ignore[misc]
        if not at:
            lines.append(f" {'─' * inner} ")
    lines.append(" " * (inner + 2))
    return "".join(f"{line}\n" for line in lines)


def _row(cells: Sequence[str], widths: Sequence[int], *, bottom: bool) -> list[list[str]] | None:
    """Each cell's lines, justified in its column and padded to the row's height (a header row
    sits on its bottom line, a body row on its top one); None when a word does not fit."""
    columns = []
    for at, (text, width) in enumerate(zip(cells, widths, strict=True)):
        lines = [piece.rstrip() for piece in _pieces(text, width, fold=False)]
        if any(len(line) > width for line in lines):
            return None
        columns.append([line.rjust(width) if at else line.ljust(width) for line in lines])
    height = max(len(lines) for lines in columns)
    for lines, width in zip(columns, widths, strict=True):
        blank = [" " * width] * (height - len(lines))
        lines[:] = [*blank, *lines] if bottom else [*lines, *blank]
    return columns


def _pieces(text: str, width: int, *, fold: bool) -> list[str]:
    """``text`` cut where Rich's ``divide_line`` cuts it (each piece keeps its trailing spaces)."""
    breaks: list[int] = []
    offset = 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group()
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width and fold:
            chunks = [word[at : at + width] for at in range(0, len(word), width)]
            for chunk in chunks[:-1]:
                if start:
                    breaks.append(start)
                start += len(chunk)
            if start:
                breaks.append(start)
            offset = len(chunks[-1])
        elif length > width:
            if start:
                breaks.append(start)
            offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    edges = [0, *breaks, len(text)]
    return [text[begin:end] for begin, end in itertools.pairwise(edges)]


def _rstrip_end(line: str, width: int) -> str:
    """Rich's ``Text.rstrip_end``: the spaces that end ``line`` beyond ``width`` dropped."""
    excess = len(line) - width
    if excess <= 0:
        return line
    spaces = len(line) - len(line.rstrip())
    return line[: len(line) - min(spaces, excess)]
