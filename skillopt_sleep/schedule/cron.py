"""The crontab form of an entry, and splicing it into (or out of) a user's crontab text.

The entry is one line between two marker comments naming the project key. Everything outside
our markers is kept byte for byte: re-scheduling replaces the block where it stands, and
unscheduling removes exactly those lines. Pure text in, text out; reading and writing the
crontab (``crontab -l`` / ``crontab -``) is the installer's job.

The line runs through ``/bin/sh``: each word is shell-quoted, the environment is set inline on the
command (a ``NAME=value`` crontab line would change every other job in the file too), and every
``%`` is escaped, because cron turns a bare ``%`` into a newline.
"""

from __future__ import annotations

import shlex

from skillopt_sleep.schedule.entry import Entry

BEGIN = "# >>> skillopt-sleep {key} >>>"
END = "# <<< skillopt-sleep {key} <<<"
NOTE = "# managed by `skillopt-sleep schedule`; remove with `skillopt-sleep unschedule`"


def shell_command(entry: Entry) -> str:
    """The ``/bin/sh`` command: cd to the project, set the environment, append output to the log."""
    env = " ".join(f"{name}={shlex.quote(value)}" for name, value in entry.environment)
    argv = " ".join(shlex.quote(arg) for arg in entry.argv)
    return f"cd {shlex.quote(entry.project)} && {env} {argv} >> {shlex.quote(entry.log)} 2>&1"


def cron_line(entry: Entry) -> str:
    command = shell_command(entry).replace("%", "\\%")
    return f"{entry.at.minute} {entry.at.hour} * * * {command}"


def cron_block(entry: Entry) -> str:
    """The marker-delimited block, newline-terminated."""
    lines = (BEGIN.format(key=entry.key), NOTE, cron_line(entry), END.format(key=entry.key))
    return "\n".join(lines) + "\n"


def _span(lines: list[str], key: str) -> tuple[int, int] | None:
    """Indexes [start, end) of our block in ``lines`` (kept with their line endings)."""
    begin, end = BEGIN.format(key=key), END.format(key=key)
    for i, line in enumerate(lines):
        if line.rstrip("\r\n") == begin:
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip("\r\n") == end:
                    return i, j + 1
            return i, len(lines)  # an unterminated block (hand-edited): it ends the file
    return None


def has_block(crontab: str, key: str) -> bool:
    return _span(crontab.splitlines(keepends=True), key) is not None


def with_block(crontab: str, key: str, block: str) -> str:
    """``crontab`` with our block for ``key`` replaced in place, or appended when absent."""
    lines = crontab.splitlines(keepends=True)
    span = _span(lines, key)
    if span is not None:
        start, stop = span
        return "".join(lines[:start]) + block + "".join(lines[stop:])
    if crontab and not crontab.endswith("\n"):
        crontab += "\n"  # cron ignores a last line without a newline anyway
    return crontab + block


def without_block(crontab: str, key: str) -> str:
    """``crontab`` with our block for ``key`` removed; unchanged (same bytes) when absent."""
    lines = crontab.splitlines(keepends=True)
    span = _span(lines, key)
    if span is None:
        return crontab
    start, stop = span
    return "".join(lines[:start]) + "".join(lines[stop:])
