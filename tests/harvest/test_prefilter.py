"""Lines a source skips unparsed (``ignorable`` / ``ignorable_head``) are exactly lines its
``feed`` would have dropped: reading with and without the prefilter gives the same state."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from harvest._fixtures import FIXTURES, WEBAPP, iter_lines
from skillopt_sleep.harvest._events import FileState
from skillopt_sleep.harvest._lines import LineRead
from skillopt_sleep.harvest._reading import _feed
from skillopt_sleep.harvest._registry import HarvestConfig, Source, load_sources

_CODEX_LINES = (
    b'{"timestamp":"2026-11-21T11:58:04.000Z","type":"event_msg","payload":{"type":"token_count"}}',
    b'{"timestamp":"2026-11-21T11:58:04.000Z","type":"world_state","payload":{"full":true}}',
    b'{"timestamp":"2026-11-21T11:58:04.000Z","type":"event_msg","payload":{"type":"task_started"}}',
    b'{"timestamp":"2026-11-21T11:58:04.000Z","ordinal":3,"type":"event_msg","payload":{"type":"task_complete"}}',
    b'{"timestamp":"9999-99-99","type":"event_msg","payload":{"type":"item_completed","item":{}}}',
    b'{"timestamp":"2026\\",\\"type\\":\\"world_state","type":"event_msg","payload":{"type":"x"}}',
)


def _state(source: Source, lines: list[bytes]) -> tuple[FileState, Counter[str]]:
    state, skipped = FileState(), Counter[str]()
    _feed(source, state, lines, HarvestConfig(Path(WEBAPP), {}), skipped)
    return state, skipped


def _unfiltered(source: Source) -> Source:
    plain = type(source)()
    plain.ignorable, plain.ignorable_head = (), None
    return plain


@pytest.mark.parametrize(("name", "folder"), [("claude", ".claude"), ("codex", ".codex")])
def test_prefilter_changes_nothing_on_genuine_transcripts(name: str, folder: str) -> None:
    source = load_sources().get(name)
    files = sorted((FIXTURES / folder).rglob("*.jsonl"))
    assert files
    for path in files:
        lines = list(iter_lines(path, 0, LineRead(0)))
        assert _state(source, lines) == _state(_unfiltered(source), lines), path.name


def test_codex_prefilter_matches_only_dropped_records() -> None:
    source = load_sources().get("codex")
    head = source.ignorable_head
    assert head is not None
    assert [bool(head.match(line)) for line in _CODEX_LINES] == [
        True,
        True,
        True,
        True,
        False,
        False,
    ]
    lines = list(_CODEX_LINES)
    assert _state(source, lines) == _state(_unfiltered(source), lines)
