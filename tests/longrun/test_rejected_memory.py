"""The rejected-edit buffer a file carries from night to night stays bounded.

Found by simulating months of nights: every night appended what it rejected to
``optimizer.json``, the same edit again each time it was rejected again, and nothing ever left
it; the buffer is read, rewritten and copied into each kept night's run state
(``runtime_state.json``, 30 nights) every night, so a year of nights with a real optimizer
(up to ``train.lr_max`` rejected edits a night, each with its rationale) carried about a
thousand entries, 31 times over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillopt_core.optim.buffer import RejectedBuffer
from skillopt_sleep.engine import ProjectState
from skillopt_sleep.engine.consolidate import MAX_REJECTED, compact_rejected
from tests.longrun._days import Developer


def _entry(content: str, *, alone: bool = False, step: int = 0, why: str = "") -> dict[str, Any]:
    edit = {"op": "add", "anchor": "", "content": content, "rationale": why or "night",
            "support": 1, "source": "failure"}  # fmt: skip
    return {"edit": edit, "delta": -0.1, "step": step, "alone": alone}


def _blocked(entries: Any) -> set[tuple[str, str, str]]:
    return RejectedBuffer.from_json(entries).blocked_keys()


def test_an_edit_rejected_night_after_night_is_carried_once() -> None:
    entries = [_entry("- be brief") for _ in range(40)] + [_entry("- cite  sources")]
    entries += [_entry("- cite sources")]  # the same edit, whitespace aside: now blocked
    compacted = compact_rejected(entries)
    assert [e["edit"]["content"] for e in compacted] == ["- be brief", "- cite sources"]
    assert _blocked(compacted) == _blocked(entries)


def test_an_edit_rejected_once_in_a_bundle_keeps_its_second_chance() -> None:
    compacted = compact_rejected([_entry("- be brief")])
    assert _blocked(compacted) == set()
    assert _blocked([*compacted, _entry("- be brief")]) == {("add", "", "- be brief")}


def test_the_oldest_of_the_engines_rejections_go_past_the_limit_never_the_users() -> None:
    user = _entry("- never this", alone=True, step=-1, why="rejected by the user: no")
    entries = [user] + [_entry(f"- rule {n}", alone=True) for n in range(30)]
    entries.append(_entry("- never this", alone=True))  # the night rejected it again later
    compacted = compact_rejected(entries, limit=10)
    contents = [e["edit"]["content"] for e in compacted]
    assert contents == [f"- rule {n}" for n in range(20, 30)] + ["- never this"]
    assert compacted[-1]["edit"]["rationale"] == "rejected by the user: no"  # still the user's


def test_a_nights_carried_buffer_stays_within_its_limit(tmp_path: Path) -> None:
    developer = Developer(tmp_path, new_task_every=1)
    state = ProjectState(developer.project)
    for day in range(3):
        developer.day(day)
    developer.night(2)  # the first night reads three days: its tasks have recurred
    carry = json.loads(state.optimizer_path.read_text())
    (skill,) = carry
    old = [_entry(f"- old rule {n}", alone=n % 2 == 0) for n in range(3 * MAX_REJECTED)]
    user = _entry("- the user said no", alone=True, step=-1, why="rolled back by the user: x")
    carry[skill]["rejected"] = [user, *old, *carry[skill]["rejected"]]
    state.optimizer_path.write_text(json.dumps(carry))

    developer.day(3)
    report = developer.night(3)
    carried = json.loads(state.optimizer_path.read_text())[skill]["rejected"]
    engine = [e for e in carried if e["step"] != -1]
    assert len(engine) <= MAX_REJECTED  # was 3 * MAX_REJECTED and more, every night more
    assert user in carried
    tonight = {(e.op, e.anchor, e.content) for e in report.rejected}
    assert tonight <= {tuple(e["edit"][k] for k in ("op", "anchor", "content")) for e in carried}
