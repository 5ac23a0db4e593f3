"""`mine` (``preview_families``) reports its progress as a night does: it drew no bar, so a mine
of a long history with MiniLM sat silent for minutes."""

from __future__ import annotations

from skillopt_sleep.engine import load_config, preview_families
from tests.engine._world import World


def test_preview_families_reports_harvest_and_mining_progress(world: World) -> None:
    seen: list[tuple[str, int, int]] = []
    config = load_config(world.webapp, world.overrides())
    preview_families(world.webapp, config, progress=lambda *tick: seen.append(tick))
    stages = {stage for stage, _, _ in seen}
    assert "claude" in stages  # the harvest, per source
    assert {"embed", "cluster"} & stages  # the miner's own steps
    assert all(0 <= done <= max(total, 1) for _, done, total in seen)
