"""The daemon's wiring with fake clocks, schedulers and observers: nothing waits."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillopt_core.errors import BusyError
from skillopt_sleep.schedule import DailyTime
from skillopt_sleep.schedule.daemon import (
    JOB_ID,
    MISFIRE_GRACE_SECONDS,
    Daemon,
    NightJob,
    add_night_job,
    warm_once,
)
from skillopt_sleep.schedule.debounce import Policy
from skillopt_sleep.schedule.watch import Watcher, is_transcript_change, plan, transcript_dirs
from tests.schedule.conftest import FakeObserver, FakeScheduler

UTC = timezone.utc


@pytest.fixture
def scheduler() -> Any:
    from apscheduler.schedulers.background import BackgroundScheduler

    return BackgroundScheduler(timezone=UTC)  # never started: no thread, no waiting


def test_night_job_is_a_coalesced_daily_cron_job_with_a_misfire_grace(scheduler: Any) -> None:
    job = add_night_job(scheduler, DailyTime(3, 17), lambda: None)
    assert job.id == JOB_ID
    assert job.coalesce is True
    assert job.max_instances == 1
    assert job.misfire_grace_time == MISFIRE_GRACE_SECONDS == 6 * 3600
    fields = {f.name: str(f) for f in job.trigger.fields}
    assert (fields["hour"], fields["minute"]) == ("3", "17")
    now = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    assert job.trigger.get_next_fire_time(None, now) == datetime(2026, 11, 24, 3, 17, tzinfo=UTC)


def _missed(scheduler: Any, hours_ago: float, calls: list[datetime]) -> tuple[Any, list[Any]]:
    """A job whose last fire time was ``hours_ago`` and that also missed the two nights before:
    what the scheduler would hand the executor on waking now."""
    from apscheduler.executors.base import run_job

    now = datetime.now(UTC).replace(microsecond=0)
    last = now - timedelta(hours=hours_ago)
    job = add_night_job(
        scheduler, DailyTime(last.hour, last.minute), lambda: calls.append(now), timezone=UTC
    )
    job._modify(next_run_time=last.replace(second=0) - timedelta(days=2))
    run_times = job._get_run_times(now)
    assert len(run_times) == 3  # three nights were missed while asleep
    handed = run_times[-1:] if job.coalesce else run_times  # what BaseScheduler._process_jobs does
    events = run_job(job, "default", handed, "test")
    return job, events


def test_missed_nights_run_once_on_wake_within_the_grace(scheduler: Any) -> None:
    calls: list[datetime] = []
    _, events = _missed(scheduler, hours_ago=2, calls=calls)
    assert len(calls) == 1
    assert [e.code for e in events] == [4096]  # EVENT_JOB_EXECUTED


def test_a_night_missed_beyond_the_grace_is_skipped(scheduler: Any) -> None:
    from apscheduler.events import EVENT_JOB_MISSED

    calls: list[datetime] = []
    _, events = _missed(scheduler, hours_ago=7, calls=calls)
    assert calls == []
    assert [e.code for e in events] == [EVENT_JOB_MISSED]


def test_night_job_calls_run_night_with_a_fresh_config_and_reports(tmp_path: Path) -> None:
    seen: list[tuple[Path, Any]] = []
    events: list[dict[str, Any]] = []
    configs = iter(["config-1", "config-2"])

    def run(project: Path, config: Any) -> Any:
        seen.append((project, config))
        return SimpleNamespace(outcome="staged", night_id="n1", proposal="n1")

    job = NightJob(tmp_path, lambda: next(configs), run, events.append)
    assert job() == "staged"
    assert job() == "staged"
    assert seen == [(tmp_path, "config-1"), (tmp_path, "config-2")]
    assert events[1] == {
        "event": "night-done",
        "outcome": "staged",
        "night_id": "n1",
        "proposal": "n1",
    }


def test_a_failed_night_is_reported_and_the_daemon_lives_on(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []

    def busy(project: Path, config: Any) -> Any:
        raise BusyError("another night holds the project (pid 42)")

    def bug(project: Path, config: Any) -> Any:
        raise ZeroDivisionError

    assert NightJob(tmp_path, lambda: None, busy, events.append)() == "error"
    assert events[-1] == {
        "event": "night-error",
        "error": "another night holds the project (pid 42)",
        "exit_code": 5,
    }
    assert NightJob(tmp_path, lambda: None, bug, events.append)() == "error"
    assert events[-1]["exit_code"] == 1


def test_refresh_is_skipped_while_a_night_runs_and_survives_errors(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    calls: list[Path] = []

    def refresh(project: Path, config: Any) -> dict[str, int]:
        calls.append(project)
        return {"sessions": 3}

    busy = threading.Lock()
    with busy:
        assert not warm_once(tmp_path, lambda: None, refresh, busy, events.append)
    assert calls == []
    assert warm_once(tmp_path, lambda: None, refresh, busy, events.append)
    assert events == [{"event": "refresh", "sessions": 3}]
    assert not warm_once(tmp_path, lambda: None, lambda p, c: None, busy, events.append)

    def broken(project: Path, config: Any) -> dict[str, int]:
        raise OSError("database is locked")

    assert not warm_once(tmp_path, lambda: None, broken, busy, events.append)
    assert events[-1] == {"event": "refresh-error", "error": "database is locked"}
    assert not busy.locked()


def test_serve_wires_scheduler_observer_and_debounced_refresh(tmp_path: Path) -> None:
    watched = tmp_path / "claude" / "projects"
    watched.mkdir(parents=True)
    scheduler = FakeScheduler()
    observer = FakeObserver()
    now = [0.0]
    events: list[dict[str, Any]] = []
    refreshed: list[tuple[Path, Any]] = []
    nights: list[tuple[Path, Any]] = []
    daemon: Daemon

    def emit(event: dict[str, Any]) -> None:
        events.append(dict(event))
        if event["event"] == "ready":  # a transcript is written, then 31 quiet seconds pass
            observer.write(watched / "p" / "s.jsonl")
            now[0] += 31

    def refresh(project: Path, config: Any) -> dict[str, int]:
        refreshed.append((project, config))
        daemon.stop.set()
        return {"sessions": 1}

    def clock() -> float:
        if len(events) > 50:  # the loop never ran the refresh: fail rather than spin
            daemon.stop.set()
        return now[0]

    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: "config",
        watch_dirs=lambda: (watched, tmp_path / "codex" / "sessions"),
        run=lambda project, config: nights.append((project, config)),
        refresh=refresh,
        emit=emit,
        policy=Policy(quiet=30, max_wait=600, min_interval=300),
        clock=clock,
        poll_seconds=0,
        observe=lambda on_change: Watcher(on_change, observer),
        scheduler_factory=lambda: scheduler,
    )
    assert daemon.serve() == 0
    assert refreshed == [(tmp_path, "config")]
    assert [e["event"] for e in events] == ["ready", "refresh", "stopped"]
    assert events[0]["watching"] == [str(watched)]
    assert events[0]["missing"] == [str(tmp_path / "codex" / "sessions")]
    assert events[0]["next_run"] == "2026-11-24T03:17:00Z"
    assert list(observer.handlers) == [str(watched)]
    assert observer.started and observer.joined
    assert scheduler.started and scheduler.shut_down
    (job,) = scheduler.jobs
    assert (job["coalesce"], job["max_instances"]) == (True, 1)
    job["func"]()  # what the scheduler calls at 03:17
    assert nights == [(tmp_path, "config")]


def test_transcript_dirs_honour_config_homes_and_harness_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-env"))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    dirs = transcript_dirs(tmp_path, ["all"], {"claude": tmp_path / "cl"})
    assert dirs == [
        tmp_path / "cl" / "projects",
        tmp_path / "codex-env" / "sessions",
        tmp_path / "codex-env" / "archived_sessions",
        tmp_path / "home" / ".copilot" / "session-state",
    ]
    assert transcript_dirs(tmp_path, ["codex"], {}) == dirs[1:3]
    assert plan(dirs).watched == ()


def test_only_transcript_files_count_as_changes() -> None:
    assert is_transcript_change("/h/.claude/projects/p/abc.jsonl", False)
    assert not is_transcript_change("/h/.claude/projects/p", True)
    assert not is_transcript_change("/h/.copilot/session-state/x/workspace.yaml", False)


def test_a_watch_that_cannot_start_leaves_the_nights_running(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    scheduler = FakeScheduler()

    def observe(on_change: Any) -> Any:
        raise OSError("inotify instance limit reached")

    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: None,
        watch_dirs=lambda: (tmp_path,),
        emit=events.append,
        observe=observe,
        scheduler_factory=lambda: scheduler,
    )
    daemon.stop.set()
    assert daemon.serve() == 0
    assert [e["event"] for e in events] == ["watch-error", "ready", "stopped"]
    assert events[1]["watching"] == [] and scheduler.started and scheduler.shut_down
