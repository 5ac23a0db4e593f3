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

The line runs through ``/bin/sh``: each word is shell-quoted, the environment is set inline on the
command (a ``NAME=value`` crontab line would change every other job in the file too), and every
``%`` is escaped, because cron turns a bare ``%`` into a newline. It sets ``umask 077`` first (the
log the redirection creates is private, like every state file) and creates the logs folder, so a
deleted state directory does not stop the night before Python starts. Everything after that
writes to the log, so a moved engine or project is a line there naming it and the fix
(:mod:`.health`), not a bare ``not found`` or a ``cd`` error mailed to nobody.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule import health
from skillopt_sleep.schedule.at import DailyTime
from skillopt_sleep.schedule.entry import Entry

BEGIN = "# >>> skillopt-sleep {key} >>>"
END = "# <<< skillopt-sleep {key} <<<"
NOTE = "# managed by `skillopt-sleep schedule`; remove with `skillopt-sleep unschedule`"


# Our entry line as :func:`cron_line` writes it: "M H * * * " then a command running our module.
_OUR_LINE = re.compile(r"^(\d{1,2}) (\d{1,2}) \* \* \* .* -m skillopt_sleep run --project ")


def shell_command(entry: Entry) -> str:
    """The ``/bin/sh`` command: private umask, make the logs folder, say so in the log and stop
    if the engine or the project is gone (:mod:`.health`), cd to the project, set the
    environment, run the night appending its output to the log."""
    env = " ".join(f"{name}={shlex.quote(value)}" for name, value in entry.environment)
    argv = " ".join(shlex.quote(arg) for arg in entry.argv)
    logs = shlex.quote(posixpath.dirname(entry.log) or ".")
    python, project = shlex.quote(entry.argv[0]), shlex.quote(entry.project)
    engine = health.engine_gone(
        entry.argv[0], entry.project, str(entry.at), health.profile_of(entry.argv)
    )
    log = shlex.quote(entry.log)
    return (
        f"umask 077 && mkdir -p {logs} && {{ "
        f"[ -x {python} ] || {{ {_say(engine)}; exit {health.ENGINE_GONE_EXIT}; }}; "
        f"[ -d {project} ] || "
        f"{{ {_say(health.project_gone(entry.project))}; exit {health.PROJECT_GONE_EXIT}; }}; "
        f"}} >> {log} 2>&1 && cd {project} && {env} {argv} >> {log} 2>&1"
    )


def _say(problem: health.Problem) -> str:
    """A shell command appending ``problem``'s line, stamped with the UTC time, to the output."""
    stamp = '"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'
    return f"printf '%s %s\\n' {stamp} {shlex.quote(health.line(problem))}"


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


def with_block(crontab: str, key: str, block: str) -> str:
    """``crontab`` with our block for ``key`` replaced in place, or appended when absent."""
    lines = _lines(crontab)
    ours = _ours(lines, key)
    if ours:
        kept = [line for i, line in enumerate(lines) if i not in ours]
        at = ours[0]
        if _closes_unterminated(lines, ours, kept):
            block = block.removesuffix("\n")  # keep the mark: the newline before it is ours
        return "".join(kept[:at]) + block + "".join(kept[at:])
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
