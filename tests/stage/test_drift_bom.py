"""A skill file an editor saved as UTF-8 "with BOM" (Notepad, some Windows editors) still has a
frontmatter: the byte order mark before ``---`` used to hide it, so its description was not
read for routing and a step edit could rewrite its ``name`` and ``description``."""

from __future__ import annotations

from pathlib import Path

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill import apply_edits, split_frontmatter, strip_frontmatter
from skillopt_sleep.skills import discover_skills, training_view, with_learned
from skillopt_sleep.skills.learned import body_from_view

BOM = "\ufeff"
SKILL = (
    f"{BOM}---\r\nname: login-tests\r\ndescription: Fix failing login tests\r\n---\r\n"
    "# Login tests\r\nRun the auth suite first.\r\n"
)


def test_the_frontmatter_after_a_byte_order_mark_is_the_frontmatter() -> None:
    frontmatter, rest = split_frontmatter(SKILL)
    assert frontmatter.startswith(BOM) and frontmatter.endswith("---\r\n")
    assert frontmatter + rest == SKILL
    assert strip_frontmatter(SKILL).startswith("# Login tests")


def test_a_step_edit_cannot_rewrite_the_frontmatter_of_a_skill_with_a_bom() -> None:
    edit = Edit(op=EditOp.REPLACE, anchor="description: Fix failing login tests", content="x")
    report = apply_edits(SKILL, [edit])
    assert report.text == SKILL
    assert not report.outcomes[0].applied and "protected" in report.outcomes[0].reason


def test_a_skill_with_a_bom_is_routed_by_its_description(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    skill = project / ".claude" / "skills" / "auth" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(SKILL.encode("utf-8"))
    (found,), skipped = discover_skills(project, tmp_path / "home")
    assert (found.name, found.description) == ("login-tests", "Fix failing login tests")
    assert skipped == []


def test_the_learned_block_keeps_the_bom_and_line_endings_byte_for_byte() -> None:
    view = training_view(SKILL)
    assert view.startswith(f"{BOM}---\r\nname: login-tests\r\n")
    proposed = with_learned(SKILL, body_from_view(view + "- check the session cookie\n"))
    assert proposed.startswith(SKILL)
    assert proposed[len(SKILL) :] == (
        "\r\n<!-- skillopt-sleep:learned -->\r\n- check the session cookie\r\n"
        "<!-- /skillopt-sleep:learned -->\r\n"
    )
