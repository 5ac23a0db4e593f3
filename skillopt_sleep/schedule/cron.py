"""The crontab form of an entry, and splicing it into (or out of) a user's crontab text.

The entry is one line between two marker comments naming the project key. Everything else is
kept byte for byte: re-scheduling replaces the block where it stands, and unscheduling removes
exactly our lines. Lines end at ``\n`` only (a CR is part of a line, as cron sees it). When the
last line has no newline we add one before our block and leave our end marker unterminated
instead, which tells the removal to take that newline away again.
A block whose end marker was deleted by hand loses only what we recognise as ours (the begin
marker, the note, our entry line); the user's lines after it stay. Pure text in, text out
(the runner decodes with ``surrogateescape``, so any byte survives); reading and writing the
crontab (``crontab -l`` / ``crontab -``) is the installer's job.

The line runs :mod:`.shell`'s ``/bin/sh`` command, with every ``%`` escaped, because cron turns a
bare ``%`` into a newline. The environment is set inline on that command: a ``NAME=value`` crontab
line would change every other job in the file too.

cronie (Fedora, RHEL, Arch) fires every entry below a ``CRON_TZ=Zone`` line on that zone's clock
(its ``find_jobs`` reads ``CRON_TZ`` from the settings above each entry; an empty value means the
daemon's own zone; ``TZ=`` only reaches the job's environment). Debian's cron ignores it. Our
block goes where no ``CRON_TZ`` applies, so it fires on the system clock ``status`` shows: at the
end as always when none is in effect there, or else just above the first line setting one. We
write no ``CRON_TZ`` ourselves (a pin plus a line restoring the user's value would be a stale copy
once the user edits theirs), so the user's entries keep firing exactly as before, and a block that
sits below one (an older version appended it there) moves up when scheduled again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.entry import Entry
from skillopt_sleep.schedule.shell import shell_command

BEGIN = "# >>> skillopt-sleep {key} >>>"
END = "# <<< skillopt-sleep {key} <<<"
NOTE = "# managed by `skillopt-sleep schedule`; remove with `skillopt-sleep unschedule`"


ZONE_VARIABLE = "CRON_TZ"

# Our entry line as :func:`cron_line` writes it: "M H * * * " then a command running our module.
_OUR_LINE = re.compile(r"^(\d{1,2}) (\d{1,2}) \* \* \* .* -m skillopt_sleep run --project ")

# An environment setting as cronie and vixie cron read a line (``load_env``): blanks, a name (bare
# up to a blank or "=", or quoted), "=", then a value: quoted (then only blanks), or bare to the end
# of the line less its trailing blanks. Anything else is a comment or an entry.
_B = " \t\r\v\f"  # C isspace() without the newline
_SETTING = re.compile(
    rf"[ \t]*(?:\"(?P<dq>[^\"=]*)\"|'(?P<sq>[^'=]*)'|(?P<name>[^{_B}=\"'][^{_B}=]*|))"
    rf"[{_B}]*=[{_B}]*"
    rf"(?:\"(?P<dv>[^\"]*)\"[{_B}]*|'(?P<sv>[^']*)'[{_B}]*|(?P<value>(?:[^{_B}\"'].*)?))"
)


def cron_line(entry: Entry) -> str:
    command = shell_command(entry).replace("%", "\\%")
    return f"{entry.at.minute} {entry.at.hour} * * * {command}"


def cron_block(entry: Entry) -> str:
    """The marker-delimited block, newline-terminated."""
    lines = (BEGIN.format(key=entry.key), NOTE, cron_line(entry), END.format(key=entry.key))
    return "\n".join(lines) + "\n"


def _lines(crontab: str) -> list[str]:
    """``crontab`` split after each ``\n`` only (str.splitlines would also split at a lone CR)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", crontab)


def _ours(lines: list[str], key: str) -> list[int]:
    """Indexes of our lines for ``key``: the begin marker, the note and the entry line right after
    it, and our end marker (normally next; wherever it is after the begin marker otherwise)."""
    begin, end = BEGIN.format(key=key), END.format(key=key)
    bare = [line.rstrip("\r\n") for line in lines]
    if begin not in bare:
        return []
    start = bare.index(begin)
    found, i = [start], start + 1
    if i < len(bare) and bare[i] == NOTE:
        found.append(i)
        i += 1
    if i < len(bare) and _OUR_LINE.match(bare[i]):
        found.append(i)
    found += [j for j in range(start + 1, len(bare)) if bare[j] == end][:1]
    return sorted(set(found))


def has_block(crontab: str, key: str) -> bool:
    return bool(_ours(_lines(crontab), key))


def block_time(crontab: str, key: str) -> DailyTime | None:
    """When our entry line for ``key`` fires; None without one (or with a time edited by hand
    into one that is not a time of day)."""
    lines = _lines(crontab)
    for i in _ours(lines, key):
        match = _OUR_LINE.match(lines[i])
        if match:
            try:
                return DailyTime(int(match.group(2)), int(match.group(1)))
            except UsageError:
                return None
    return None


def zone_setting(line: str) -> str | None:
    """The ``CRON_TZ`` value ``line`` sets as cron reads it; None when it sets none."""
    found = _SETTING.fullmatch(line.removesuffix("\n").lstrip(" \t"))  # linear on blanks
    if found is None:
        return None
    name = next(n for n in (found["dq"], found["sq"], found["name"]) if n is not None)
    if name != ZONE_VARIABLE:
        return None
    if found["value"] is not None:
        return found["value"].rstrip(_B)
    return found["dv"] if found["dv"] is not None else found["sv"]


def zone_in_effect(lines: Sequence[str]) -> str:
    """The ``CRON_TZ`` that cronie applies to an entry after ``lines`` ("" for none: the
    daemon's own zone, the system zone ``status`` shows)."""
    value = ""
    for line in lines:
        found = zone_setting(line)
        if found is not None:
            value = found
    return value


def block_zone(crontab: str, key: str) -> str | None:
    """The ``CRON_TZ`` in effect at our entry line for ``key`` ("" for none); None without one."""
    lines = _lines(crontab)
    for i in _ours(lines, key):
        if _OUR_LINE.match(lines[i]):
            return zone_in_effect(lines[:i])
    return None


def with_block(crontab: str, key: str, block: str) -> str:
    """``crontab`` with our block for ``key`` replaced in place, or added when absent (or when
    it stood below a ``CRON_TZ`` line) where no ``CRON_TZ`` applies to it."""
    lines = _lines(crontab)
    ours = _ours(lines, key)
    if ours:
        kept = [line for i, line in enumerate(lines) if i not in ours]
        at = ours[0]
        if zone_in_effect(kept[:at]):
            return _added(without_block(crontab, key), block)
        if _closes_unterminated(lines, ours, kept):
            block = block.removesuffix("\n")  # keep the mark: the newline before it is ours
        return "".join(kept[:at]) + block + "".join(kept[at:])
    return _added(crontab, block)


def _added(crontab: str, block: str) -> str:
    """``block`` appended to ``crontab``, unless a ``CRON_TZ`` is in effect at its end: then
    just above the first line setting one, where none is (the lines before it all end in a
    newline, since that line follows them)."""
    lines = _lines(crontab)
    if zone_in_effect(lines):
        first = next(i for i, line in enumerate(lines) if zone_setting(line) is not None)
        return "".join(lines[:first]) + block + "".join(lines[first:])
    if crontab and not crontab.endswith("\n"):
        return crontab + "\n" + block.removesuffix("\n")  # see the module docstring
    return crontab + block


def without_block(crontab: str, key: str) -> str:
    """``crontab`` with our lines for ``key`` removed; unchanged (same text) when absent."""
    lines = _lines(crontab)
    ours = _ours(lines, key)
    if not ours:
        return crontab
    kept = [line for i, line in enumerate(lines) if i not in ours]
    if _closes_unterminated(lines, ours, kept) and kept and kept[-1].endswith("\n"):
        kept[-1] = kept[-1][:-1]  # the newline before our block was ours
    return "".join(kept)


def _closes_unterminated(lines: list[str], ours: list[int], kept: list[str]) -> bool:
    """Our block ends the file with an unterminated end marker (see the module docstring)."""
    return ours[-1] == len(lines) - 1 and not lines[-1].endswith("\n") and ours[0] == len(kept)
