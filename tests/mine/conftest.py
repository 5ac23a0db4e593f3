"""Keep the miner's state out of the user's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _state_home(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "sleep-home"))
