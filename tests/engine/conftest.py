"""Engine tests: state, user config and HOME-derived paths stay inside the test's temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._isolation import isolate_sleep_state
from tests.engine._world import World, make_world


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path / "w")
