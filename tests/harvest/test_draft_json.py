"""The CLI renders sessions straight from drafts: byte for byte what the records give."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harvest._fixtures import WEBAPP
from skillopt_sleep import _forked
from skillopt_sleep.harvest import HarvestRun, _harvest, _reading, open_index
from skillopt_sleep.harvest._output import session_json


def _run(homes: dict[str, Path]) -> HarvestRun:
    return HarvestRun(WEBAPP, None, None, open_index(WEBAPP, ":memory:"), homes=homes)


def test_draft_json_is_session_json(homes: dict[str, Path]) -> None:
    from_records = [session_json(s) for s in _run(homes)]
    from_drafts = list(_run(homes).json())
    assert from_records, "the fixtures hold sessions"
    assert from_drafts == from_records
    assert any(b'"tool_calls": [\n' in d for d in from_drafts)
    assert any(b'"signals": [\n' in d for d in from_drafts)


def test_worker_rendering_is_session_json(
    homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from_records = [session_json(s) for s in _run(homes)]
    monkeypatch.setattr(_forked, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_reading, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(_reading, "PARALLEL_MIN_BYTES", 0)
    rendered: list[bytes] = []
    real = _reading.read_all

    def spy(*args: Any, **kwargs: Any) -> Any:
        for number, outcome in real(*args, **kwargs):
            rendered.append(outcome.rendered)
            yield number, outcome

    monkeypatch.setattr(_harvest, "read_all", spy)
    assert list(_run(homes).json()) == from_records
    if _forked.available():
        assert any(rendered), "workers rendered the sessions they read whole"
