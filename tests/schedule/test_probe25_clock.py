"""Which sessions a night reads when the machine's clock was wrong for a while: sessions written
on a clock that was behind, or after a first night whose clock ran ahead, were left out of every
later night's window for good (``gather.window`` trusted the first night's time alone)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from skillopt_sleep.engine import ProjectState, load_config, run_night
from skillopt_sleep.engine.gather import window
from skillopt_sleep.engine.state import append_line
from tests.engine._world import World, make_world

NOW = datetime(2026, 11, 28, 3, 17, tzinfo=timezone.utc)  # the corrected clock


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path / "w")


def _away(world: World) -> Path:
    """The transcripts moved out of the harnesses' reach (nothing written yet)."""
    away = world.root / "away"
    world.home.rename(away)
    world.home.mkdir()
    return away


def _written_at(world: World, away: Path, moment: datetime) -> None:
    """The transcripts written, every file stamped ``moment`` (the clock of the time)."""
    world.home.rmdir()
    away.rename(world.home)
    stamp = moment.timestamp()
    for path in world.home.rglob("*"):
        if path.is_file():
            os.utime(path, (stamp, stamp))


def _night(world: World, now: datetime) -> object:
    config = load_config(world.webapp, world.overrides(**{"night.since": "7d"}))
    return run_night(world.webapp, config, home=world.home, now=now)


def test_sessions_written_while_the_clock_was_behind_are_read_once_it_is_right(
    world: World,
) -> None:
    """A night ran on a clock 200 days behind, the user worked on it, then it was corrected:
    those sessions (stamped 200 days back) were older than the window of every later night."""
    away = _away(world)
    _night(world, NOW - timedelta(days=20))  # the first night, on a right clock
    behind = NOW - timedelta(days=200)
    _night(world, behind)  # a night on the clock that is behind
    _written_at(world, away, behind + timedelta(hours=10))
    report = _night(world, NOW)  # the clock is right again
    assert report.sessions > 0, report.message


def test_a_first_night_on_a_clock_that_ran_ahead_does_not_make_the_window_slide(
    world: World,
) -> None:
    """The first night's time lay a year ahead (a clock set wrong, then corrected): every later
    night read only ``night.since`` back from itself, so sessions a few nights did not get to
    in time (the machine off, a night that failed) were left unread for good."""
    away = _away(world)
    _night(world, NOW + timedelta(days=365))  # the clock ran ahead
    _night(world, NOW - timedelta(days=12))  # corrected
    _written_at(world, away, NOW - timedelta(days=10))  # no night ran since: it was off
    report = _night(world, NOW)
    assert report.sessions > 0, report.message


def test_the_window_starts_at_the_earliest_believable_night(tmp_path: Path) -> None:
    from skillopt_sleep.engine.gather import nights_began

    project = tmp_path / "p"
    project.mkdir()
    state = ProjectState(project)
    state.ensure()
    config = load_config(project, {"night.since": "7d"})
    assert nights_began(state, NOW) is None and window(state, config, NOW) == timedelta(days=7)
    for started in ("not a time", "2026-11-20T03:17:00", "2027-11-20T03:17:00+00:00"):
        append_line(state.history_path, {"night_id": "x", "started_at": started})
    assert nights_began(state, NOW) is None  # no time, no zone, the future: none believable
    append_line(state.history_path, {"night_id": "y", "started_at": "2026-11-21T03:17:00+00:00"})
    append_line(state.history_path, {"night_id": "z", "started_at": "2026-06-01T03:17:00+00:00"})
    began = datetime(2026, 6, 1, 3, 17, tzinfo=timezone.utc)
    assert nights_began(state, NOW) == began
    assert window(state, config, NOW) == timedelta(days=7) + (NOW - began)
