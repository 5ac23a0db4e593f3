"""Schedule tests: state and config inside the test's temp dir, and a fake OS that plays the
crontab, launchctl and schtasks so no test touches the real scheduler. Code that runs the
``crontab`` program (``status`` asks it when a project has no record) finds the suite's fake one
first on PATH (``fake_scheduler`` of ``tests/conftest.py``, opted into for every test here),
keeping its table in a temp file."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillopt_sleep.schedule import Completed, Host
from tests._guard import StandIns
from tests._isolation import isolate_sleep_state


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


@pytest.fixture(autouse=True)
def fake_crontab(fake_scheduler: StandIns) -> Path:
    """The file holding the fake ``crontab``'s table (absent: "no crontab for tester")."""
    return fake_scheduler.crontab


@pytest.fixture
def engine(tmp_path: Path) -> Path:
    """A venv's python that can be moved away: a script running this interpreter."""
    python = tmp_path / "old venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return python


@dataclass
class FakeOS:
    """Records every command; keeps one user crontab (None = "no crontab for user")."""

    crontab: str | None = None
    calls: list[list[str]] = field(default_factory=list)
    fail: dict[str, Completed] = field(default_factory=dict)  # argv[1] -> forced result
    writes: int = 0

    def __call__(self, argv: Sequence[str], stdin: str | None = None) -> Completed:
        argv = list(argv)
        self.calls.append(argv)
        if len(argv) > 1 and argv[1] in self.fail:
            return self.fail[argv[1]]
        if argv[:2] == ["crontab", "-l"]:
            if self.crontab is None:
                return Completed(1, "", "no crontab for dev\n")
            return Completed(0, self.crontab, "")
        if argv[:2] == ["crontab", "-"]:
            self.crontab = stdin or ""
            self.writes += 1
            return Completed(0)
        return Completed(0)


@pytest.fixture
def fake_os() -> FakeOS:
    return FakeOS()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "my project"
    root.mkdir()
    return root


def host(platform: str, runner: FakeOS, home: Path) -> Host:
    return Host(platform=platform, runner=runner, home=str(home), uid=501)


@dataclass
class FakeScheduler:
    timezone: Any = timezone.utc
    jobs: list[dict[str, Any]] = field(default_factory=list)
    started: bool = False
    shut_down: bool = False

    def add_job(self, func: Any, trigger: Any, **options: Any) -> Any:
        self.jobs.append({"func": func, "trigger": trigger, **options})
        return SimpleNamespace(next_run_time=datetime(2026, 11, 24, 3, 17, tzinfo=timezone.utc))

    def start(self) -> None:
        self.started = True

    def shutdown(self, wait: bool = True) -> None:
        self.shut_down = True


@dataclass
class FakeObserver:
    """watchdog's Observer as :class:`Watcher` uses it: watches are recorded, never started."""

    handlers: dict[str, Any] = field(default_factory=dict)  # path -> handler
    emitters: set[Any] = field(default_factory=set)
    daemon: bool = False
    started: bool = False
    stopped: bool = False
    joined: bool = False
    refuse: dict[str, str] = field(default_factory=dict)  # path -> the OSError scheduling raises

    def schedule(self, handler: Any, path: str, recursive: bool = False) -> str:
        if path in self.refuse:
            raise OSError(self.refuse[path])
        self.handlers[path] = handler
        return path

    def unschedule(self, watch: str) -> None:
        del self.handlers[watch]

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def join(self) -> None:
        assert self.stopped
        self.joined = True

    def write(self, path: Path) -> None:
        """A transcript write under one watched folder, as watchdog would deliver it."""
        from watchdog.events import FileModifiedEvent

        (handler,) = self.handlers.values()
        handler.dispatch(FileModifiedEvent(str(path)))
