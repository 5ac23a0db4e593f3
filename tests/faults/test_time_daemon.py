"""The daemon against a laptop's clock: suspended over the night's hour, carried to another time
zone, the hour that the switch back from summer time repeats, a ``TZ`` no zone database names,
and a warm-up refresh that must read what the night reads, no further back.

The real APScheduler runs on a wall clock the test moves (its modules' ``datetime.now``); its
own timer, like the real one across a suspend, never sees the move. A timer stops a daemon that
never gets there, so a test fails on its assertions rather than hanging.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from skillopt_sleep.engine import load_config, run_night
from skillopt_sleep.schedule import DailyTime
from skillopt_sleep.schedule.daemon import REPLAN_SECONDS, Daemon, add_night_job, refresh_harvest
from tests._isolation import isolate_sleep_state
from tests.engine._world import make_world

UTC = timezone.utc
PARIS, NEW_YORK = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


class WallClock:
    """The wall clock APScheduler reads, set by the test."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import apscheduler.executors.base as executors
        import apscheduler.schedulers.base as schedulers

        clock = self

        class Fake(datetime):
            @classmethod
            def now(cls, tz: Any = None) -> Any:
                return clock.moment.astimezone(tz) if tz is not None else clock.moment

        monkeypatch.setattr(schedulers, "datetime", Fake)
        monkeypatch.setattr(executors, "datetime", Fake)


def _give_up(stop: threading.Event, seconds: float = 5.0) -> threading.Timer:
    timer = threading.Timer(seconds, stop.set)
    timer.start()
    return timer


def _daemon(tmp_path: Path, at: DailyTime, **parts: Any) -> Daemon:
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = BackgroundScheduler(timezone=UTC)
    return Daemon(
        project=tmp_path,
        at=at,
        load_config=lambda: None,
        poll_seconds=0.005,
        observe=lambda on_change: _NoObserver(),
        scheduler_factory=lambda: scheduler,
        **parts,
    )


class _NoObserver:
    watched: tuple[Path, ...] = ()

    def update(self, dirs: Any) -> Any:
        from skillopt_sleep.schedule.watch import WatchChange

        return WatchChange()

    def stop(self) -> None:
        pass

    def join(self) -> None:
        pass


def test_a_night_missed_while_the_laptop_slept_runs_on_waking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asleep from 23:00 to 05:00 over a 03:17 night: the scheduler's timer does not count the
    suspend, so it slept on for the four hours it still owed, woke past the six hours' grace and
    dropped the night. The daemon now wakes it every minute to read the wall clock."""
    wall = WallClock(datetime(2026, 11, 23, 23, 0, tzinfo=UTC))
    wall.patch(monkeypatch)
    monotonic = [0.0]
    nights: list[datetime] = []
    daemon: Daemon

    def night(project: Path, config: Any) -> None:
        nights.append(wall.moment)
        daemon.stop.set()

    def emit(event: Any) -> None:
        if event["event"] == "ready":  # the lid closes; it opens at 05:00 the next morning
            wall.moment = datetime(2026, 11, 24, 5, 0, tzinfo=UTC)
            monotonic[0] += REPLAN_SECONDS  # a minute awake after resuming

    daemon = _daemon(
        tmp_path,
        DailyTime(3, 17),
        run=night,
        emit=emit,
        clock=lambda: monotonic[0],
        wall_clock=lambda: wall.moment,
        zone=lambda: UTC,
    )
    timer = _give_up(daemon.stop)
    try:
        assert daemon.serve() == 0
    finally:
        timer.cancel()
    assert nights == [datetime(2026, 11, 24, 5, 0, tzinfo=UTC)]


def test_a_daemon_carried_to_another_zone_runs_at_the_hour_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started in Paris, then the laptop's zone became New York: the night stayed at 03:17 Paris
    time, 21:17 in New York, in the middle of the evening's work."""
    wall = WallClock(datetime(2026, 11, 23, 12, 0, tzinfo=UTC))
    wall.patch(monkeypatch)
    zone = [PARIS]
    monotonic = [0.0]
    events: list[dict[str, Any]] = []
    daemon: Daemon

    def emit(event: Any) -> None:
        events.append(dict(event))
        if event["event"] == "ready":  # the flight lands; the zone follows
            zone[0] = NEW_YORK
            monotonic[0] += REPLAN_SECONDS
        elif event["event"] == "timezone":
            daemon.stop.set()

    daemon = _daemon(
        tmp_path,
        DailyTime(3, 17),
        emit=emit,
        clock=lambda: monotonic[0],
        wall_clock=lambda: wall.moment,
        zone=lambda: zone[0],
    )
    timer = _give_up(daemon.stop)
    try:
        assert daemon.serve() == 0
    finally:
        timer.cancel()
    assert events[0]["next_run"] == "2026-11-24T02:17:00Z"  # 03:17 in Paris
    moved = [e for e in events if e["event"] == "timezone"]
    assert moved, [e["event"] for e in events]
    assert moved[0]["next_run"].endswith("T08:17:00Z")  # 03:17 in New York


@pytest.mark.parametrize(
    ("zone", "at", "first", "then"),
    [
        (PARIS, DailyTime(2, 17), datetime(2026, 10, 25, 0, 17), datetime(2026, 10, 26, 1, 17)),
        (NEW_YORK, DailyTime(1, 30), datetime(2026, 11, 1, 5, 30), datetime(2026, 11, 2, 6, 30)),
    ],
)
def test_a_night_in_the_hour_the_clocks_repeat_runs_once(
    zone: ZoneInfo, at: DailyTime, first: datetime, then: datetime
) -> None:
    """The night the clocks go back shows --at twice: APScheduler fired the night on both
    passes, an hour apart (cron runs it once)."""
    from apscheduler.schedulers.background import BackgroundScheduler

    job = add_night_job(BackgroundScheduler(timezone=UTC), at, lambda: None, timezone=zone)
    fired = job.trigger.get_next_fire_time(None, first.replace(tzinfo=UTC) - timedelta(hours=12))
    assert fired.astimezone(UTC) == first.replace(tzinfo=UTC)
    after = job.trigger.get_next_fire_time(fired, fired + timedelta(milliseconds=3))
    assert after.astimezone(UTC) == then.replace(tzinfo=UTC)
    assert job.trigger.get_next_fire_time(after, after).astimezone(UTC) == then.replace(
        tzinfo=UTC
    ) + timedelta(days=1)


def test_the_hour_the_clocks_skip_still_has_its_night() -> None:
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = BackgroundScheduler(timezone=UTC)
    job = add_night_job(scheduler, DailyTime(2, 30), lambda: None, timezone=NEW_YORK)
    before = datetime(2026, 3, 7, 12, 0, tzinfo=UTC)
    fired = job.trigger.get_next_fire_time(None, before)
    assert fired.astimezone(UTC).date() == datetime(2026, 3, 8).date()  # that night, once
    after = job.trigger.get_next_fire_time(fired, fired + timedelta(milliseconds=3))
    assert after.astimezone(UTC) == datetime(2026, 3, 9, 6, 30, tzinfo=UTC)


@pytest.fixture
def posix_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``TZ`` as a POSIX rule (US Eastern), which the C library reads and no zone database
    names; the process's zone is restored after."""
    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset (POSIX)")
    monkeypatch.setenv("TZ", "EST5EDT,M3.2.0,M11.1.0")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
    import tzlocal

    with contextlib.suppress(Exception):  # the developer's own zone config: nothing of ours
        tzlocal.reload_localzone()


@pytest.mark.usefixtures("posix_tz")
def test_a_tz_that_names_no_zone_still_starts_the_daemon(tmp_path: Path) -> None:
    """``TZ=EST5EDT,M3.2.0,M11.1.0`` (or a zone the database lacks) ended ``skillopt-sleep
    daemon`` with tzlocal's ZoneInfoNotFoundError traceback; now it follows the C library."""
    events: list[dict[str, Any]] = []
    daemon = Daemon(
        project=tmp_path,
        at=DailyTime(3, 17),
        load_config=lambda: None,
        observe=lambda on_change: _NoObserver(),
        emit=events.append,
        poll_seconds=0.005,
    )
    daemon.stop.set()  # serve sets everything up, says ready, and stops at once
    assert daemon.serve() == 0
    ready = events[0]
    assert ready["event"] == "ready", events
    eastern = {"08:17:00Z", "07:17:00Z"}  # 03:17 EST / EDT
    assert ready["next_run"][-len("08:17:00Z") :] in eastern, ready
    assert "EST5EDT" in ready["zone"]


def test_the_warm_up_refresh_reads_no_further_back_than_the_night(tmp_path: Path) -> None:
    """After the first night, the daemon's refresh read with no window: every transcript the
    first night left unread (months of them), on every refresh while the user worked, and
    reported sessions the night would never read."""
    world = make_world(tmp_path / "w")
    old = (datetime.now(UTC) - timedelta(days=60)).timestamp()
    for path in world.home.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
    config = load_config(world.webapp, world.overrides(**{"night.since": "30d"}))
    assert refresh_harvest(world.webapp, config) == {"sessions": 0}
    night = run_night(world.webapp, config, home=world.home)
    assert (night.outcome, night.sessions) == ("nothing new", 0)
    assert refresh_harvest(world.webapp, config) == {"sessions": 0}  # was 12
    wider = load_config(world.webapp, world.overrides(**{"night.since": "120d"}))
    warmed = refresh_harvest(world.webapp, wider)
    assert warmed is not None and warmed["sessions"] > 0  # the night would read them too
    assert run_night(world.webapp, wider, home=world.home, dry_run=True).sessions > 0
