"""The daemon's harvest refresh reads the genuine transcripts but consumes nothing."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.engine import load_config
from skillopt_sleep.schedule.daemon import refresh_harvest
from tests.engine._world import make_world


def test_refresh_reads_new_sessions_without_advancing_the_index(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w")
    config = load_config(world.webapp, world.overrides())
    first = refresh_harvest(world.webapp, config)
    assert first is not None and first["sessions"] > 0
    assert refresh_harvest(world.webapp, config) == first  # still there for the night
