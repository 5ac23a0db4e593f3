"""A secret kind a later version learns leaves the harvest index too: the cached state of a
transcript that never changes again, and a grown file's earlier turns, were redacted by the rules
of the version that first read them. Under other rules a recording run redacts every stored state
again (the file keeps no copy) and a read-only run redacts what it reads, without writing."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._index import INDEX_NAME
from skillopt_sleep.harvest.claude import slug
from tests.harvest._fixtures import WEBAPP, write_claude_session
from tests.mine.test_probe26_reredact import SECRET, previous_rules

ASKED = f"clone https://deploy:{SECRET}@git.example.com/app.git then run the tests"


def _run(home: Path, state: Path, *, commit: bool) -> str:
    """The sessions a harvest delivers, as text."""
    found = harvest(WEBAPP, ("claude",), None, state, homes={"claude": home}, commit=commit)
    return repr(found.sessions)


def _grow(home: Path, session_id: str, text: str) -> None:
    record = {"sessionId": session_id, "cwd": WEBAPP, "type": "user", "uuid": "later",
              "timestamp": "2026-11-20T11:00:00Z", "message": {"role": "user", "content": text}}  # fmt: skip
    with (home / "projects" / slug(WEBAPP) / f"{session_id}.jsonl").open("a") as handle:
        handle.write(json.dumps(record) + "\n")


def _stored(state: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file())


def test_states_read_under_older_rules_are_redacted_again(tmp_path: Path) -> None:
    home, state = tmp_path / ".claude", tmp_path / "state"
    write_claude_session(home, [("user", ASKED), ("assistant", "cloned; 3 tests fail")], "grows")
    write_claude_session(home, [("user", ASKED), ("assistant", "all green")], "still")
    with previous_rules():
        first = _run(home, state, commit=True)
    assert SECRET in first and SECRET.encode() in (state / INDEX_NAME).read_bytes()  # as then

    _grow(home, "grows", "and now the linter please")
    before = _stored(state)
    looked = _run(home, state, commit=False)
    assert "and now the linter please" in looked
    assert SECRET not in looked  # the earlier turns came from the stored state
    assert _stored(state) == before  # a look writes nothing

    recorded = _run(home, state, commit=True)
    assert SECRET not in recorded and "[REDACTED:url-credentials]" in recorded
    assert "all green" not in recorded  # the unchanged session is not delivered again
    assert SECRET.encode() not in _stored(state)  # not in a state, a key or a free page
    assert _run(home, state, commit=True) == "()"
