"""A live file that is not UTF-8 keeps the user's bytes: the proposal changes only the learned
block. A night reads such a file with each odd byte replaced (a Latin-1 ``Café`` as ``Caf\ufffd``)
and staged that text, so adopting it rewrote the user's own words; the diff, made from the same
replaced text, did not show it."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.engine import ProjectState, adopt, load_config, rollback, run_night
from skillopt_sleep.skills import with_learned
from skillopt_sleep.stage.proposal import FileChange, stage
from tests.engine._world import make_world

LATIN1 = b"---\r\nname: login-tests\r\ndescription: Fix failing login tests\r\n---\r\n"
LATIN1 += "Caf\u00e9 au lait, na\u00efve r\u00e9sum\u00e9.\r\n".encode("latin-1")


def test_the_staged_file_keeps_the_bytes_outside_the_learned_block(tmp_path: Path) -> None:
    skill = tmp_path / "proj" / ".claude" / "skills" / "s" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(LATIN1)
    read_by_the_night = LATIN1.decode("utf-8", "replace")
    proposed = with_learned(read_by_the_night, "- check the session cookie\n")
    stage(
        ProjectState(skill.parents[3]),
        "20260101-010000",
        [FileChange(skill, "skill", LATIN1, proposed, 1)],
        {},
    )

    adopt(skill.parents[3])

    block = (
        b"\r\n<!-- skillopt-sleep:learned -->\r\n- check the session cookie\r\n"
        b"<!-- /skillopt-sleep:learned -->\r\n"
    )
    assert skill.read_bytes() == LATIN1 + block
    rollback(skill.parents[3])
    assert skill.read_bytes() == LATIN1


def test_a_night_on_a_latin1_skill_stages_it_byte_for_byte(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w")
    skill = world.webapp / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(LATIN1)
    report = run_night(world.webapp, load_config(world.webapp, world.overrides()), home=world.home)
    assert [c.path for c in report.changes] == [str(skill)]

    adopt(world.webapp, home=world.home)

    assert skill.read_bytes().startswith(LATIN1)
    assert b"\xef\xbf\xbd" not in skill.read_bytes()  # no U+FFFD where the user wrote a byte
