"""Engine tests: state, user config and HOME-derived paths stay inside the test's temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine._world import World, make_world


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(tmp_path / "no-user-config.toml"))
    for name in list(__import__("os").environ):
        if name.startswith("SKILLOPT_SLEEP_") and name not in (
            "SKILLOPT_SLEEP_HOME",
            "SKILLOPT_SLEEP_CONFIG",
        ):
            monkeypatch.delenv(name)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path / "w")
