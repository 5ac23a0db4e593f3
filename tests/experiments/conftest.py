"""Experiment tests: engine state and user config stay inside the test's temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("SKILLOPT_SLEEP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SKILLOPT_SLEEP_CONFIG", str(tmp_path / "no-user-config.toml"))
