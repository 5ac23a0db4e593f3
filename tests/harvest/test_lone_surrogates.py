"""A record holding a lone surrogate escape ("\\ud83d": half an emoji, where a harness cut a text
by UTF-16 units, as JavaScript's ``slice`` does) is valid JSON to the harness but refused by a
strict parser: the whole record (a request, a tool result) was dropped as malformed."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._output import session_json
from skillopt_sleep.harvest.claude import slug
from tests.harvest._fixtures import WEBAPP


def test_a_request_with_half_an_emoji_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "projects" / slug(WEBAPP)
    folder.mkdir(parents=True)
    asked = "fix the flaky login test \U0001f600 please"
    cut = asked.replace("\U0001f600", "\ud83d")  # the high half alone
    records = [
        {"type": "user", "sessionId": "s1", "cwd": WEBAPP, "uuid": "u1",
         "timestamp": "2026-11-20T10:00:00Z", "message": {"role": "user", "content": cut}},
        {"type": "assistant", "sessionId": "s1", "cwd": WEBAPP, "uuid": "a1",
         "timestamp": "2026-11-20T10:01:00Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Done \udc00."}]}},
    ]  # fmt: skip
    lines = [json.dumps(r) for r in records]  # escapes the lone halves as JavaScript does
    assert "\\ud83d" in lines[0] and "\\udc00" in lines[1]
    (folder / "s1.jsonl").write_text("\n".join(lines) + "\n")
    found = harvest(
        WEBAPP, ("claude",), None, tmp_path / "state", homes={"claude": folder.parents[1]}
    )
    (session,) = found.sessions
    assert [t.text for t in session.turns] == [
        "fix the flaky login test \ufffd please",
        "Done \ufffd.",
    ]
    assert not found.stats["claude"].skipped_lines
    assert "\ufffd".encode() in session_json(session)  # and --json can write it
