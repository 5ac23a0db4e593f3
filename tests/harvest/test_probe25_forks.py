"""A forked session names its parent (``Session.forked_from``), so the miner can tell the turns it
copied from the parent from the requests typed in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from harvest._fixtures import WEBAPP
from skillopt_sleep.harvest import harvest
from skillopt_sleep.harvest._output import session_json
from skillopt_sleep.harvest.claude import slug
from skillopt_sleep.mine import Archive, MineConfig, mine

REQUEST = "migrate the billing cron job to the new scheduler service"
NEW = "write the runbook entry for the disk alert on the build machines"


def _claude(sid: str, n: int, role: str, text: str, stamp: str, parent: str = "") -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": role, "sessionId": sid, "cwd": WEBAPP, "uuid": f"{sid}-{n}", "timestamp": stamp,
        "message": {"role": role, "content": text},
    }  # fmt: skip
    if parent:
        record["forkedFrom"] = {"sessionId": parent, "messageUuid": f"{parent}-{n}"}
    return record


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _codex(sid: str, day: int, turns: list[tuple[str, str, int]], parent: str = "") -> list[dict]:
    meta: dict[str, Any] = {"id": sid, "cwd": WEBAPP}
    if parent:
        meta["forked_from_id"] = parent
    lines = [
        {"timestamp": f"2026-11-{day:02d}T10:00:00.000Z", "type": "session_meta", "payload": meta}
    ]
    for role, text, minute in turns:
        kind = "input_text" if role == "user" else "output_text"
        lines.append({
            "timestamp": f"2026-11-{day:02d}T10:{minute:02d}:00.000Z", "type": "response_item",
            "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
        })  # fmt: skip
    return lines


def test_a_claude_fork_names_its_parent(tmp_path: Path) -> None:
    folder = tmp_path / "claude" / "projects" / slug(WEBAPP)
    parent = [
        _claude("A", 0, "user", REQUEST, "2026-11-02T10:00:00Z"),
        _claude("A", 1, "assistant", "Done.", "2026-11-02T10:01:00Z"),
    ]
    copies = [
        _claude("B", n, r["type"], r["message"]["content"], r["timestamp"], "A")
        for n, r in enumerate(parent)
    ]
    fork = [*copies, _claude("B", 2, "user", NEW, "2026-11-16T09:00:00Z")]
    _write(folder / "A.jsonl", parent)
    _write(folder / "B.jsonl", fork)
    result = harvest(WEBAPP, ("claude",), index=":memory:", homes={"claude": tmp_path / "claude"})
    forked = {s.session_id: s.forked_from for s in result.sessions}
    assert forked == {"A": "", "B": "A"}
    for session in result.sessions:
        assert orjson.loads(session_json(session))["forked_from"] == forked[session.session_id]


def test_a_codex_fork_weeks_later_is_not_a_second_occasion(tmp_path: Path) -> None:
    """Codex stamps the copied items with the fork's time; the request was still typed once."""
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "11"
    _write(day / "02" / "rollout-2026-11-02T10-00-00-p1.jsonl",
           _codex("p1", 2, [("user", REQUEST, 0), ("assistant", "Done.", 1)]))  # fmt: skip
    _write(day / "16" / "rollout-2026-11-16T10-00-00-f1.jsonl",
           _codex("f1", 16, [("user", REQUEST, 0), ("assistant", "Done.", 0), ("user", NEW, 9)], "p1"))  # fmt: skip
    result = harvest(WEBAPP, ("codex",), index=":memory:", homes={"codex": home})
    assert {s.session_id: s.forked_from for s in result.sessions} == {"p1": "", "f1": "p1"}
    with Archive(":memory:") as archive:
        mined = mine(result.sessions, archive, MineConfig(embedder="jaccard", night="2026-11-20"))
    assert mined.families == ()


def test_the_json_of_a_draft_and_of_its_session_agree(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    _write(home / "sessions" / "2026" / "11" / "16" / "rollout-2026-11-16T10-00-00-f1.jsonl",
           _codex("f1", 16, [("user", NEW, 1)], "p1"))  # fmt: skip
    from skillopt_sleep.harvest import HarvestRun, open_index

    with open_index(WEBAPP, ":memory:") as index:
        rendered = list(
            HarvestRun(WEBAPP, ("codex",), None, index, homes={"codex": home}, record=False).json()
        )
    (session,) = harvest(WEBAPP, ("codex",), index=":memory:", homes={"codex": home}).sessions
    assert orjson.loads(rendered[0]) == orjson.loads(session_json(session))
    assert orjson.loads(rendered[0])["forked_from"] == "p1"
