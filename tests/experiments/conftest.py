"""Experiment tests: engine state and user config stay inside the test's temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._isolation import isolate_sleep_state


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)
