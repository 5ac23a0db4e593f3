"""The Windows form of an entry: a batch script in the state directory and a daily task that runs it.

Task Scheduler has no per-task environment and its ``/TR`` command is limited to 261 characters,
so the captured PATH, the working directory, the interpreter command and the redirection to the
log live in ``run-night.cmd``; the task (``schtasks /Create /SC DAILY /ST HH:MM``) runs only that
script's quoted path. ``/F`` replaces an existing task of the same name, so re-scheduling never
duplicates.

Quoting: every value in the script is wrapped in double quotes (so spaces, ``&``, ``|``, ``<``,
``>`` and ``^`` are literal) and ``%`` is doubled (batch files expand ``%NAME%`` even inside
quotes). A double quote cannot be quoted for cmd at all, so an argument containing one is
refused. ``/TR`` gets the script path inside quotes; passed as one argv element, Python's
``subprocess.list2cmdline`` escapes those quotes as ``\\"``, which is how schtasks reads them.
"""

from __future__ import annotations

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule import health
from skillopt_sleep.schedule.entry import Entry

TASK_FOLDER = "SkillOpt-Sleep"


def task_name(key: str) -> str:
    return f"\\{TASK_FOLDER}\\{key}"


def cmd_quote(value: str) -> str:
    if '"' in value:
        raise UsageError(
            f"cannot schedule an argument containing a double quote on Windows: {value}"
        )
    return '"' + value.replace("%", "%%") + '"'


def echo_text(text: str) -> str:
    """``text`` as ``echo`` prints it outside quotes: ``^`` before cmd's special characters,
    ``%`` doubled."""
    for char in "^&|<>()":
        text = text.replace(char, "^" + char)
    return text.replace("%", "%%")


def script_text(entry: Entry) -> str:
    """The batch script (CRLF line endings, UTF-8 with ``chcp 65001`` for non-ASCII paths). A
    moved engine or project, or an engine that no longer imports us, is a line in the log naming
    it and the fix (:mod:`.health`)."""
    log = cmd_quote(entry.log)
    where = (entry.argv[0], entry.project, str(entry.at), health.profile_of(entry.argv))
    engine = health.engine_gone(*where)
    python = cmd_quote(entry.argv[0])
    lines = [
        "@echo off",
        f"rem skillopt-sleep {entry.key}: managed by `skillopt-sleep schedule`;"
        " remove with `skillopt-sleep unschedule`",
        "chcp 65001 >nul",
        *(f"set {cmd_quote(f'{name}={value}')}" for name, value in entry.environment),
        f"if not exist {python} goto engine_gone",
        f"if not exist {cmd_quote(entry.project.rstrip(chr(92)) + chr(92))} goto project_gone",
        f"cd /d {cmd_quote(entry.project)}",
        f"{python} -c {cmd_quote(health.FINDS_US)} >nul 2>&1 || goto engine_without_us",
        " ".join(cmd_quote(arg) for arg in entry.argv) + f" >> {log} 2>&1",
        "exit /b %ERRORLEVEL%",
        ":engine_gone",
        f">> {log} echo {echo_text(health.line(engine))}",
        f"exit /b {health.ENGINE_GONE_EXIT}",
        ":engine_without_us",
        f">> {log} echo {echo_text(health.line(health.engine_without_us(*where)))}",
        f"exit /b {health.ENGINE_GONE_EXIT}",
        ":project_gone",
        f">> {log} echo {echo_text(health.line(health.project_gone(entry.project)))}",
        f"exit /b {health.PROJECT_GONE_EXIT}",
    ]
    return "\r\n".join(lines) + "\r\n"


def create_argv(entry: Entry, script: str) -> list[str]:
    return [
        "schtasks",
        "/Create",
        "/F",
        "/SC",
        "DAILY",
        "/ST",
        str(entry.at),
        "/TN",
        task_name(entry.key),
        "/TR",
        f'"{script}"',
    ]


def query_argv(key: str) -> list[str]:
    """Exit 0 when the task exists."""
    return ["schtasks", "/Query", "/TN", task_name(key)]


def delete_argv(key: str) -> list[str]:
    return ["schtasks", "/Delete", "/F", "/TN", task_name(key)]
