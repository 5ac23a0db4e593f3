"""Regression tests for the scheduler faults a QA pass found (each failed before its fix)."""

from __future__ import annotations

import os
import plistlib
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillopt_sleep.schedule import (
    Completed,
    DailyTime,
    ScheduleError,
    build_entry,
    cron,
    launchd,
    windows,
)
from skillopt_sleep.schedule.cron import (
    END,
    cron_block,
    has_block,
    shell_command,
    with_block,
    without_block,
)
from skillopt_sleep.schedule.daemon import Daemon, install_signal_handlers
from skillopt_sleep.schedule.entry import Entry
from skillopt_sleep.schedule.install import Host, install_schedule, remove_schedule
from skillopt_sleep.schedule.runner import run_command
from skillopt_sleep.schedule.watch import WatchChange
from tests.schedule.conftest import FakeOS, host

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="cron and /bin/sh are POSIX")
OTHERS = "MAILTO=dev@example.com\n0 1 * * * /usr/bin/first-job\n"


def _entry(key: str = "my-project-0123456789") -> Entry:
    return Entry(
        key=key,
        project="/home/dev/my project",
        at=DailyTime(3, 17),
        argv=("/opt/py/bin/python", "-m", "skillopt_sleep", "run", "--project", "/home/dev/p"),
        environment=(("PATH", "/usr/bin:/bin"),),
        log="/home/dev/state/logs/night.log",
        state_dir="/home/dev/state",
    )


# --- the night sees the state dir and user config `schedule` resolved -------------------------


def test_entry_always_carries_the_resolved_state_dir_and_user_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.engine.config import user_config_path
    from skillopt_sleep.paths import state_dir

    monkeypatch.delenv("SKILLOPT_SLEEP_HOME")
    monkeypatch.delenv("SKILLOPT_SLEEP_CONFIG")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg conf"))
    project = tmp_path / "proj"
    project.mkdir()
    entry = build_entry(project, DailyTime(3, 17), environ={"PATH": "/usr/bin"})
    home, config = str(state_dir()), str(user_config_path())
    if sys.platform.startswith("linux"):
        assert home.startswith(str(tmp_path / "xdg state"))
        assert config.startswith(str(tmp_path / "xdg conf"))
    assert entry.env["SKILLOPT_SLEEP_HOME"] == home
    assert entry.env["SKILLOPT_SLEEP_CONFIG"] == config
    words = shlex.split(cron.cron_line(entry).split(" ", 5)[5])
    assert f"SKILLOPT_SLEEP_HOME={home}" in words
    assert f"SKILLOPT_SLEEP_CONFIG={config}" in words
    plist = plistlib.loads(launchd.plist_bytes(entry))
    assert f"SKILLOPT_SLEEP_CONFIG={config}" in shlex.split(plist["ProgramArguments"][2])
    assert f'set "SKILLOPT_SLEEP_HOME={home}"' in windows.script_text(entry)


# --- the crontab goes back byte for byte ------------------------------------------------------


@pytest.fixture
def real_runner_host(tmp_path: Path, fake_crontab: Path) -> tuple[Host, Path]:
    """The real :func:`run_command` against the fake ``crontab`` program on PATH."""
    return Host("linux", run_command, str(tmp_path / "home"), 501), fake_crontab


@posix_only
def test_non_utf8_cr_bytes_and_a_missing_final_newline_survive_schedule_and_unschedule(
    real_runner_host: tuple[Host, Path], project: Path
) -> None:
    linux, table = real_runner_host
    original = b'# caf\xe9 latin-1\r\n0 1 * * * printf "a\\rb"; echo "a\rb" > /tmp/y\r\n# last'
    table.write_bytes(original)
    install_schedule(project, "03:17", host=linux)
    installed = table.read_bytes()
    assert installed.startswith(original + b"\n# >>> skillopt-sleep ")
    assert installed.count(b"\n") == original.count(b"\n") + 4
    install_schedule(project, "04:00", host=linux)  # replaced in place, still reversible
    assert table.read_bytes().count(b"# >>> skillopt-sleep") == 1
    remove_schedule(project, host=linux)
    assert table.read_bytes() == original


def test_run_command_passes_bytes_through_unchanged() -> None:
    echo = [sys.executable, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"]
    text = b"caf\xe9\r\nx\ry".decode("utf-8", "surrogateescape")
    done = run_command(echo, text)
    assert done.returncode == 0 and done.stdout == text


def test_lone_cr_and_missing_final_newline_are_kept_by_the_splice() -> None:
    entry = _entry()
    crontab = '0 1 * * * echo "a\rb"\r\n# last line'
    added = with_block(crontab, entry.key, cron_block(entry))
    assert added.startswith(crontab + "\n# >>> ")
    again = with_block(added, entry.key, cron_block(entry))
    assert without_block(again, entry.key) == crontab


# --- an unterminated block loses only our lines -----------------------------------------------


def test_an_unterminated_block_removes_only_our_lines() -> None:
    entry = _entry()
    block = cron_block(entry).replace(END.format(key=entry.key) + "\n", "")
    later = "30 6 * * * /usr/bin/important-backup\n# a comment\n"
    crontab = OTHERS + block + later
    assert has_block(crontab, entry.key)
    assert without_block(crontab, entry.key) == OTHERS + later
    replaced = with_block(crontab, entry.key, cron_block(entry))
    assert replaced == OTHERS + cron_block(entry) + later


def test_user_lines_inside_our_markers_are_kept() -> None:
    entry = _entry()
    lines = cron_block(entry).splitlines(keepends=True)
    crontab = OTHERS + "".join(lines[:3]) + "5 5 * * * mine\n" + lines[3]
    assert without_block(crontab, entry.key) == OTHERS + "5 5 * * * mine\n"


# --- concurrent schedules keep every block ----------------------------------------------------


@dataclass
class SlowFakeOS(FakeOS):
    """A FakeOS whose ``crontab -l`` takes a moment, as a real one does, so unlocked
    read-modify-writes from several threads interleave."""

    mutex: threading.Lock = field(default_factory=threading.Lock)
    drop_writes: bool = False

    def __call__(self, argv: Any, stdin: str | None = None) -> Completed:
        if list(argv[:2]) == ["crontab", "-l"]:
            with self.mutex:
                done = super().__call__(argv, stdin)
            time.sleep(0.02)
            return done
        if self.drop_writes and list(argv[:2]) == ["crontab", "-"]:
            return Completed(0)
        with self.mutex:
            return super().__call__(argv, stdin)


def test_concurrent_schedules_keep_every_block(tmp_path: Path) -> None:
    fake = SlowFakeOS(crontab="0 1 * * * /usr/bin/keep-me\n")
    linux = host("linux", fake, tmp_path / "home")
    projects = [tmp_path / f"p{i}" for i in range(6)]
    errors: list[BaseException] = []

    def schedule(root: Path, minute: int) -> None:
        root.mkdir()
        try:
            install_schedule(root, f"03:{minute:02d}", host=linux)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=schedule, args=(p, i)) for i, p in enumerate(projects)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert fake.crontab is not None
    assert fake.crontab.count("# >>> skillopt-sleep ") == len(projects)
    assert "keep-me" in fake.crontab


def test_a_write_that_does_not_stick_is_an_error_with_a_fix(tmp_path: Path, project: Path) -> None:
    fake = SlowFakeOS(crontab=OTHERS, drop_writes=True)
    with pytest.raises(ScheduleError) as caught:
        install_schedule(project, "03:17", host=host("linux", fake, tmp_path / "home"))
    assert "missing" in caught.value.message and "crontab -l" in caught.value.hint


# --- the daemon lets a running night finish ---------------------------------------------------


@dataclass
class ThreadScheduler:
    """Starts the night at once on a thread, as APScheduler would at --at."""

    timezone: Any = timezone.utc
    threads: list[threading.Thread] = field(default_factory=list)
    job: Any = None

    def add_job(self, func: Any, trigger: Any, **options: Any) -> Any:
        self.job = func
        return SimpleNamespace(next_run_time=datetime(2026, 11, 24, 3, 17, tzinfo=timezone.utc))

    def start(self) -> None:
        self.threads.append(threading.Thread(target=self.job))
        self.threads[-1].start()

    def shutdown(self, wait: bool = True) -> None:
        pass  # like APScheduler's shutdown(wait=False): it does not wait for the night


def test_stopping_the_daemon_waits_for_the_running_night(tmp_path: Path) -> None:
    events: list[str] = []
    scheduler = ThreadScheduler()
    daemon: Daemon

    def night(project: Path, config: Any) -> Any:
        time.sleep(1.0)
        return SimpleNamespace(outcome="staged", night_id="n1", proposal="n1")

    def emit(event: Any) -> None:
        events.append(event["event"])
        if event["event"] == "night-start":
            daemon.stop.set()  # SIGTERM arrives while the night runs

    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: None,
        run=night,
        emit=emit,
        poll_seconds=0.01,
        observe=lambda on_change: SimpleNamespace(
            watched=(), update=lambda dirs: WatchChange(), stop=lambda: None, join=lambda: None
        ),
        scheduler_factory=lambda: scheduler,
    )
    try:
        assert daemon.serve() == 0
        assert events[-1] == "stopped"
        assert "night-done" in events and events.index("night-done") < events.index("stopped")
    finally:
        for thread in scheduler.threads:
            thread.join()


def test_sighup_stops_the_daemon_like_sigterm() -> None:
    if not hasattr(signal, "SIGHUP"):
        pytest.skip("no SIGHUP on this platform")
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    saved = {name: signal.getsignal(getattr(signal, name)) for name in names}
    stop = threading.Event()
    try:
        install_signal_handlers(stop)
        handler = signal.getsignal(signal.SIGHUP)
        assert callable(handler) and handler is signal.getsignal(signal.SIGTERM)
        handler(signal.SIGHUP, None)
        assert stop.is_set()
    finally:
        for name, previous in saved.items():
            signal.signal(getattr(signal, name), previous)


# --- the entry's shell command: private log, logs folder made ----------------------------------


@posix_only
def test_the_entry_makes_its_logs_folder_and_a_private_log(tmp_path: Path) -> None:
    log = tmp_path / "gone state" / "projects" / "k" / "logs" / "night.log"
    entry = Entry(
        key="k",
        project=str(tmp_path),
        at=DailyTime(3, 17),
        argv=(sys.executable, "-c", "print('night ran')"),
        environment=(("PATH", os.defpath),),
        log=str(log),
        state_dir=str(log.parent.parent),
    )
    assert shell_command(entry).startswith("umask 077 && ")
    done = subprocess.run(
        ["/bin/sh", "-c", "umask 022; " + shell_command(entry)], check=False, timeout=30
    )
    assert done.returncode == 0
    assert log.read_text() == "night ran\n"
    assert log.stat().st_mode & 0o777 == 0o600
    assert log.parent.stat().st_mode & 0o077 == 0


# --- status shows a damaged record ------------------------------------------------------------


def test_status_text_shows_a_damaged_schedule_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.cli._render import status_table

    monkeypatch.setenv("COLUMNS", "300")
    status = SimpleNamespace(
        project="/p",
        state_dir="/s",
        running=None,
        nights=[],
        ended_since_last_night=0,
        pending=[],
        schedule={"installed": False, "error": "the schedule record /s/schedule.json is damaged"},
        backends={},
        health={},
        archive={},
    )
    status_table(status)
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("schedule:"))
    assert "not scheduled" not in line
    assert "schedule.json is damaged" in line


def test_a_relative_state_dir_is_one_folder_for_the_log_and_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry exported it resolved but created and appended to its log relative to the shell's
    own folder, so the log and the state parted."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", "relative/state")
    project = tmp_path / "proj"
    project.mkdir()
    entry = build_entry(project, DailyTime(3, 17), environ={"PATH": "/usr/bin"})
    home = str(tmp_path / "relative" / "state")
    assert entry.env["SKILLOPT_SLEEP_HOME"] == home
    assert entry.log.startswith(home + os.sep) and entry.state_dir.startswith(home)
    words = shlex.split(cron.cron_line(entry).split(" ", 5)[5])
    assert words[words.index("mkdir") + 2].startswith(home)
