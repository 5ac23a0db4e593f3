"""The CLI renders sessions straight from drafts: byte for byte what the records give."""

from __future__ import annotations

from pathlib import Path

from harvest._fixtures import WEBAPP
from skillopt_sleep.harvest import HarvestRun, open_index
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
