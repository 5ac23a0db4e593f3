"""Faults a QA pass found in what a night reads and says (each test failed before).

A project skill file that links out of the project is no skill (its text would be sent to a
model and ``adopt`` would write through the link); one that links inside the project is trained,
and the report names the file the link leads to. A night's message says when families were
withheld because their corrections contradict each other, and when families were found but none
can be judged yet.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.engine import load_config, run_night
from tests.engine._world import World, make_world

USER_SKILL = (
    "---\nname: login-tests\ndescription: Fix failing login tests in tests/test_auth.py\n---\n"
    "# Login tests\nRun the auth suite first.\n"
)


def _night(world: World, project: Path):  # type: ignore[no-untyped-def]
    return run_night(project, load_config(project, world.overrides()), home=world.home)


def test_a_project_skill_linking_out_of_the_project_is_not_read(world: World) -> None:
    outside = world.root / "outside" / "fake_bashrc"
    outside.parent.mkdir()
    bashrc = "export PATH=$HOME/bin:$PATH\n# login tests: fix failing login tests in test_auth\n"
    outside.write_text(bashrc)
    link = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(outside, link.parent))
    report = _night(world, world.webapp)
    assert str(link) not in {f.skill for f in report.families}
    assert all(c.path != str(link) for c in report.changes)
    assert "skipped a skill" in report.message and str(outside) in report.message
    assert "outside the project" in report.message
    assert outside.read_text() == bashrc


def test_a_planted_managed_skill_link_is_neither_read_nor_staged(world: World) -> None:
    """The managed skill's own path, planted as a link out of the project by a cloned repo."""
    outside = world.root / "outside" / "notes.md"
    outside.parent.mkdir()
    outside.write_text("# private notes\n")
    link = world.webapp / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    report = _night(world, world.webapp)
    assert all(c.path != str(link) for c in report.changes)
    assert f"not trained: {link} is a link to {outside}" in report.message
    assert outside.read_text() == "# private notes\n"


def test_a_link_inside_the_project_is_trained_and_the_report_names_its_target(
    world: World,
) -> None:
    real = world.webapp / "docs" / "login-skill.md"
    real.parent.mkdir()
    real.write_text(USER_SKILL)
    link = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(real, link.parent))
    report = _night(world, world.webapp)
    (change,) = [c for c in report.changes if c.path == str(link)]
    assert change.target == str(real)
    staged = Path(report.proposal_dir)
    for name in ("diff.patch", "report.md", "report.html"):
        assert str(real) in (staged / name).read_text(), name
    assert json.loads((staged / "report.json").read_text())["changes"][0]["target"] == str(real)


def _session(home: Path, project: Path, sid: str, turns: list[str], start: datetime) -> None:
    """A Claude Code session: each of ``turns`` a user message, each answered."""
    folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    for number, text in enumerate(turns):
        at = (start + timedelta(seconds=40 * number)).isoformat().replace("+00:00", "Z")
        base = {"sessionId": sid, "cwd": str(project), "gitBranch": "main", "timestamp": at}
        user, reply = f"{sid}-u{number}", f"{sid}-a{number}"
        lines.append({**base, "type": "user", "uuid": user, "parentUuid": parent,
                      "message": {"role": "user", "content": text}})  # fmt: skip
        lines.append({**base, "type": "assistant", "uuid": reply, "parentUuid": user,
                      "message": {"role": "assistant", "content": [
                          {"type": "text", "text": "here are the notes"}]}})  # fmt: skip
        parent = reply
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _world_of(tmp_path: Path, sessions: list[list[str]]) -> World:
    world = make_world(tmp_path / "w")
    project = world.root / "proj"
    project.mkdir()
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=5)
    for number, turns in enumerate(sessions):
        sid = f"{number:08d}-0000-4000-8000-000000000000"
        _session(world.home, project, sid, turns, start + timedelta(hours=20 * number))
    return world


REQUEST = "write the release notes for this version"


def test_a_night_says_families_were_withheld_for_contradicting_corrections(
    tmp_path: Path,
) -> None:
    world = _world_of(
        tmp_path,
        [
            [REQUEST, "no, mention the migration guide"],
            [REQUEST, "no, don't mention the migration guide"],
        ]
        * 2,
    )
    report = _night(world, world.root / "proj")
    assert "1 family withheld: its corrections contradict each other" in report.message


def test_a_night_says_families_were_found_but_none_can_be_judged_yet(tmp_path: Path) -> None:
    world = _world_of(tmp_path, [[REQUEST]] * 4)
    report = _night(world, world.root / "proj")
    assert len(report.families) == 1
    assert "no recurring task could be replayed yet" not in report.message
    assert "1 family found, but it has no judge yet" in report.message
    assert "no corrections or checks to judge by" in report.message
