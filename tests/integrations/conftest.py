"""Integration tests: engine state, user config and HOME stay inside the test's temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.engine._world import World, make_world


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(tmp_path / "no-user-config.toml"))
    for name in list(os.environ):
        if name.startswith("SKILLOPT_SLEEP_") and name not in (
            "SKILLOPT_SLEEP_HOME",
            "SKILLOPT_SLEEP_CONFIG",
        ):
            monkeypatch.delenv(name)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """The genuine transcripts under a temp HOME, wired in through the environment layer."""
    made = make_world(tmp_path / "w")
    monkeypatch.setenv("HOME", str(made.home))
    for key, value in made.overrides().items():
        monkeypatch.setenv("SKILLOPT_SLEEP_" + key.replace(".", "_").upper(), str(value))
    return made
