"""The cron line and the crontab splice: everything outside our markers is kept byte for byte."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from skillopt_sleep.schedule import DailyTime, Entry, install_schedule, remove_schedule
from skillopt_sleep.schedule.cron import (
    BEGIN,
    END,
    cron_block,
    cron_line,
    has_block,
    with_block,
    without_block,
)
from tests.schedule.conftest import FakeOS, host

OTHERS = (
    "MAILTO=dev@example.com\n"
    "# my backups\n"
    "0 * * * * /usr/bin/backup --all >/dev/null 2>&1\n"
    "30 2 * * 1 echo 'weekly %s' \\% x\n"
)


def _entry(**changes: object) -> Entry:
    values: dict[str, object] = {
        "key": "my-project-0123456789",
        "project": "/home/dev/my project",
        "at": DailyTime(3, 17),
        "argv": (
            "/opt/py 3/bin/python",
            "-m",
            "skillopt_sleep",
            "run",
            "--project",
            "/home/dev/my project",
            "--target",
            "claude-cli",
            "--max-usd",
            "1.5",
        ),
        "environment": (("PATH", "/home/dev/.local/bin:/usr/bin"), ("SKILLOPT_SLEEP_HOME", "/s t")),
        "log": "/home/dev/state dir/logs/night.log",
        "state_dir": "/home/dev/state dir",
    }
    values.update(changes)
    return Entry(**values)  # type: ignore[arg-type]


def _as_shell(line: str) -> list[str]:
    """What /bin/sh receives from cron (``\\%`` -> ``%``), split into words."""
    command = line.split(" ", 5)[5]
    return shlex.split(command.replace("\\%", "%"))


def test_cron_line_runs_the_absolute_interpreter_daily_with_path_and_log() -> None:
    line = cron_line(_entry())
    assert line.startswith("17 3 * * * ")
    words = _as_shell(line)
    assert words[:6] == ["umask", "077", "&&", "mkdir", "-p", "/home/dev/state dir/logs"]
    log = "/home/dev/state dir/logs/night.log"
    night = words.index("PATH=/home/dev/.local/bin:/usr/bin")  # after the checks, in the project
    at = words.index("cd")
    assert words[at : at + 5] == ["cd", "/home/dev/my project", "||", "exit", "66;"]
    assert words[night - 5 : night] == ["}", ">>", log, "2>&1", "&&"]
    assert words[night + 1] == "SKILLOPT_SLEEP_HOME=/s t"
    assert words[night + 2 : night + 12] == list(_entry().argv)
    assert words[night + 12 :] == [">>", log, "2>&1"]


def test_percent_signs_are_escaped_for_cron() -> None:
    entry = _entry(environment=(("PATH", "/odd%dir:/usr/bin"),))
    line = cron_line(entry)
    assert "%" not in line.replace("\\%", "")
    assert "PATH=/odd%dir:/usr/bin" in _as_shell(line)


def test_block_is_delimited_by_markers_naming_the_project_key() -> None:
    block = cron_block(_entry())
    lines = block.splitlines()
    assert lines[0] == BEGIN.format(key="my-project-0123456789")
    assert lines[-1] == END.format(key="my-project-0123456789")
    assert lines[2] == cron_line(_entry())
    assert block.endswith("\n")


def test_splice_appends_replaces_in_place_and_removes_byte_identical() -> None:
    entry = _entry()
    first = with_block(OTHERS, entry.key, cron_block(entry))
    assert first.startswith(OTHERS) and has_block(first, entry.key)
    later = _entry(at=DailyTime(4, 0))
    second = with_block(first + "5 5 * * * later-line\n", entry.key, cron_block(later))
    assert second.count(BEGIN.format(key=entry.key)) == 1
    assert "0 4 * * * " in second and "17 3 * * * " not in second
    assert second.endswith("5 5 * * * later-line\n")  # replaced where it stood
    assert without_block(second, entry.key) == OTHERS + "5 5 * * * later-line\n"


def test_removing_an_absent_block_changes_nothing() -> None:
    assert without_block(OTHERS, "other-key") == OTHERS
    other = with_block(OTHERS, "other-key", cron_block(_entry(key="other-key")))
    assert without_block(other, "my-project-0123456789") == other


def test_crlf_and_missing_final_newline_are_handled() -> None:
    crlf = "0 1 * * * a\r\n0 2 * * * b\r\n"
    entry = _entry()
    assert without_block(with_block(crlf, entry.key, cron_block(entry)), entry.key) == crlf
    bare = "0 1 * * * a"
    added = with_block(bare, entry.key, cron_block(entry))
    assert added.startswith("0 1 * * * a\n" + BEGIN.format(key=entry.key))


def test_install_and_remove_through_crontab_leave_other_lines_byte_identical(
    project: Path, tmp_path: Path
) -> None:
    fake = FakeOS(crontab=OTHERS)
    linux = host("linux", fake, tmp_path / "home")
    record = install_schedule(project, "03:17", ["--target", "claude-cli"], host=linux)
    assert fake.calls[0] == ["crontab", "-l"] and fake.calls[1] == ["crontab", "-"]
    assert fake.crontab is not None and fake.crontab.startswith(OTHERS)
    assert record.kind == "cron" and record.artifacts == {"cron_block": record.key}
    # a second schedule replaces the line: one block, the new time
    install_schedule(project, "04:05", ["--target", "claude-cli"], host=linux)
    assert fake.crontab.count(f">>> skillopt-sleep {record.key} >>>") == 1
    assert "5 4 * * * " in fake.crontab
    removal = remove_schedule(project, host=linux)
    assert fake.crontab == OTHERS
    assert removal.removed == (f"crontab block {record.key}",)
    # nothing left to remove: no write at all
    writes = fake.writes
    assert remove_schedule(project, host=linux).removed == ()
    assert fake.writes == writes


def test_no_crontab_yet_is_an_empty_one(project: Path, tmp_path: Path) -> None:
    fake = FakeOS(crontab=None)
    install_schedule(project, "03:17", host=host("linux", fake, tmp_path))
    assert fake.crontab is not None and fake.crontab.startswith("# >>> skillopt-sleep ")
    remove_schedule(project, host=host("linux", fake, tmp_path))
    assert fake.crontab == ""


def test_a_failing_crontab_is_a_schedule_error(project: Path, tmp_path: Path) -> None:
    from skillopt_sleep.schedule import Completed, ScheduleError

    fake = FakeOS(crontab="", fail={"-": Completed(1, "", "crontab: permission denied")})
    with pytest.raises(ScheduleError, match="permission denied") as caught:
        install_schedule(project, "03:17", host=host("linux", fake, tmp_path))
    assert "skillopt-sleep daemon" in caught.value.hint  # every refusal says what to do


def test_the_cron_command_runs_in_a_real_shell_with_its_quoting_intact(tmp_path: Path) -> None:
    """What /bin/sh makes of the line: the exact argv, the captured PATH, the cwd, the log."""
    import json
    import subprocess
    import sys

    project = tmp_path / "a 'quoted' project $HOME"
    project.mkdir()
    log = tmp_path / "logs dir" / "night.log"
    log.parent.mkdir()
    probe = (
        "import json, os, sys; print(json.dumps([sys.argv[1:], os.environ['PATH'], os.getcwd()]))"
    )
    entry = _entry(
        project=str(project),
        argv=(sys.executable, "-c", probe, "--set", "a b", "100%", "$(rm -rf x)"),
        environment=(("PATH", "/x y/bin:/usr/bin:/bin"),),
        log=str(log),
    )
    command = cron_line(entry).split(" ", 5)[5].replace("\\%", "%")
    subprocess.run(["/bin/sh", "-c", command], check=True)
    subprocess.run(["/bin/sh", "-c", command], check=True)
    lines = log.read_text().splitlines()
    assert len(lines) == 2  # appended, not overwritten
    argv, path, cwd = json.loads(lines[0])
    assert argv == ["--set", "a b", "100%", "$(rm -rf x)"]
    assert path == "/x y/bin:/usr/bin:/bin"
    assert cwd == str(project)
