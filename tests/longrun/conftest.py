"""Long-run tests: months of nights simulated cheaply, state and config under the test's temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._isolation import isolate_sleep_state


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)
