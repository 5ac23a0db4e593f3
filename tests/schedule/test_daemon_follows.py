"""The daemon's watch list follows the folders wanted now, not those known at start.

The real watchdog observer on temp folders; the daemon's clock and replan cadence are injected,
so each step is driven by the daemon's own events. A timer stops a daemon that never gets there
(the test then fails on its assertions, it does not hang).
"""

from __future__ import annotations

import itertools
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.schedule import DailyTime
from skillopt_sleep.schedule.daemon import REPLAN_SECONDS, Daemon
from skillopt_sleep.schedule.debounce import Policy
from skillopt_sleep.schedule.watch import WatchChange, Watcher
from tests.schedule.conftest import FakeObserver, FakeScheduler

AT_ONCE = Policy(quiet=0, max_wait=0, min_interval=0)  # refresh on the first transcript write


@contextmanager
def give_up(stop: threading.Event, seconds: float = 10.0) -> Iterator[None]:
    timer = threading.Timer(seconds, stop.set)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def test_a_transcript_folder_made_after_the_daemon_started_is_watched(tmp_path: Path) -> None:
    claude = tmp_path / "claude" / "projects"
    claude.mkdir(parents=True)
    codex = tmp_path / "codex" / "sessions"  # Codex has not been used yet
    now = [0.0]
    events: list[dict[str, Any]] = []
    refreshed: list[Path] = []
    daemon: Daemon

    def emit(event: Any) -> None:
        events.append(dict(event))
        if event["event"] == "ready":  # Codex runs for the first time; a minute passes
            codex.mkdir(parents=True)
            now[0] += REPLAN_SECONDS
        elif event["event"] == "watch":
            (codex / "s.jsonl").write_text("{}\n")

    def refresh(project: Path, config: Any) -> dict[str, int]:
        refreshed.append(project)
        daemon.stop.set()
        return {"sessions": 1}

    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: None,
        watch_dirs=lambda: (claude, codex),
        refresh=refresh,
        emit=emit,
        policy=AT_ONCE,
        clock=lambda: now[0],
        poll_seconds=0.005,
        scheduler_factory=FakeScheduler,
    )
    with give_up(daemon.stop):
        assert daemon.serve() == 0
    assert events[0]["watching"] == [str(claude)] and events[0]["missing"] == [str(codex)]
    assert [e["event"] for e in events] == ["ready", "watch", "refresh", "stopped"]
    assert events[1] == {"event": "watch", "added": [str(codex)], "removed": []}
    assert refreshed == [tmp_path]


def test_the_watch_follows_the_configuration_and_a_broken_one_is_reported_once(
    tmp_path: Path,
) -> None:
    claude, codex = tmp_path / "claude", tmp_path / "codex"
    claude.mkdir()
    codex.mkdir()
    broken = UsageError("unknown key night.sourcs in config.toml")
    # what the configuration names at each replan: both, broken twice, then Codex dropped
    script = itertools.chain([[claude, codex], broken, broken], itertools.repeat([claude]))
    events: list[dict[str, Any]] = []
    watchers: list[Watcher] = []
    daemon: Daemon

    def dirs() -> list[Path]:
        step = next(script)
        if isinstance(step, Exception):
            raise step
        return step

    def emit(event: Any) -> None:
        events.append(dict(event))
        if event["event"] == "watch":
            assert watchers[0].watched == (claude,)
            daemon.stop.set()

    def observe(on_change: Any) -> Watcher:
        watchers.append(Watcher(on_change))
        return watchers[0]

    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: None,
        watch_dirs=dirs,
        emit=emit,
        clock=lambda: 0.0,
        poll_seconds=0.001,
        replan_seconds=0,  # every turn of the loop
        observe=observe,
        scheduler_factory=FakeScheduler,
    )
    with give_up(daemon.stop):
        assert daemon.serve() == 0
    assert [e["event"] for e in events] == ["ready", "watch-error", "watch", "stopped"]
    assert events[0]["watching"] == [str(claude), str(codex)]
    assert events[1] == {"event": "watch-error", "error": broken.message}
    assert events[2] == {"event": "watch", "added": [], "removed": [str(codex)]}


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify ends the watch of a deleted folder"
)
def test_a_watched_folder_deleted_and_made_again_is_watched_anew(tmp_path: Path) -> None:
    from watchdog.observers import Observer

    folder = tmp_path / "sessions"
    folder.mkdir()
    written = threading.Event()
    observer = Observer()
    watcher = Watcher(written.set, observer)
    try:
        assert watcher.update([folder]) == WatchChange(added=(folder,))
        (emitter,) = observer.emitters
        shutil.rmtree(folder)
        emitter.join(timeout=10)  # inotify reports the deletion; the watch ends
        assert not emitter.is_alive()
        folder.mkdir()
        assert watcher.update([folder]) == WatchChange(added=(folder,), removed=(folder,))
        (folder / "s.jsonl").write_text("{}\n")
        assert written.wait(timeout=10)
        shutil.rmtree(folder)
        assert watcher.update([folder]) == WatchChange(removed=(folder,), missing=(folder,))
    finally:
        watcher.stop()
        watcher.join()


def test_a_folder_that_cannot_be_watched_is_reported_once_and_retried(tmp_path: Path) -> None:
    observer = FakeObserver(refuse={str(tmp_path): "inotify watch limit reached"})
    watcher = Watcher(lambda: None, observer)
    assert watcher.update([tmp_path]).failed == ((tmp_path, "inotify watch limit reached"),)
    assert watcher.update([tmp_path]) == WatchChange()  # not again at every replan
    observer.refuse.clear()
    assert watcher.update([tmp_path]) == WatchChange(added=(tmp_path,))
