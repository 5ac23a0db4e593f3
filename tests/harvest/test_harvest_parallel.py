"""The parallel read path (worker processes) gives exactly what the in-process path gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from harvest._fixtures import PLANTED_KEY
from skillopt_sleep import _forked
from skillopt_sleep.harvest import _reading, harvest
from skillopt_sleep.jsonable import dumps


@pytest.mark.integration
def test_workers_match_in_process(homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> str:
        result = harvest(
            "/home/dev/webapp", sources=("claude", "codex"), index=":memory:", homes=homes
        )
        return dumps([list(result.sessions), dict(result.stats)])

    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    serial = run()
    monkeypatch.setattr(_reading, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(_reading, "PARALLEL_MIN_BYTES", 0)
    parallel = run()
    assert parallel == serial
    assert PLANTED_KEY not in parallel
