"""A Copilot CLI record whose ``id`` is not text (found by ``test_fuzz_readers``).

The reader kept the record's ``id`` as the event's de-duplication key whatever its type; the
file's state is stored in the index with orjson, which refuses nesting deeper than 254, so one
record with a deeply nested ``id`` raised out of the whole harvest (every session lost). A key
that is not text is now no key: the record is kept, without de-duplication.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harvest._copilot import CLI_SESSIONS, copilot_home, events_file
from skillopt_sleep.harvest import harvest


def _deep(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"id": [value]}
    return value


def _sessions(home: Path) -> dict[str, Any]:
    result = harvest("/home/dev/webapp", index=":memory:", homes={"copilot": home})
    return {s.session_id: s for s in result.sessions}


@pytest.mark.parametrize("odd_id", [_deep(300), {"a": 1}, ["x"], 7, True])
def test_a_record_id_that_is_not_text_costs_nothing(tmp_path: Path, odd_id: Any) -> None:
    home = copilot_home(tmp_path)
    before = _sessions(home)
    path = events_file(home, "fix")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for record in records:
        if record.get("type") == "user.message":
            record["id"] = odd_id
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    after = _sessions(home)  # raised TypeError("Recursion limit reached") for the deep one
    assert after.keys() == before.keys()
    for session_id, session in before.items():
        if session_id != CLI_SESSIONS["fix"]:
            assert after[session_id] == session
    fixed, original = after[CLI_SESSIONS["fix"]], before[CLI_SESSIONS["fix"]]
    assert [t.text for t in fixed.user_turns] == [t.text for t in original.user_turns]
