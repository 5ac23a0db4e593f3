"""The contradiction check: an edit that writes the opposite of a learned line it keeps is
refused before any evaluation, naming that line, and only then (precision first: a refused edit
is blocked for good in the rejected-edit buffer)."""

from __future__ import annotations

import pytest

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill import apply_edits
from skillopt_core.skill._contradiction import (
    CONTRADICTION_PREFIX,
    MAX_LINE_CHARS,
    as_replacement,
    claims,
    contradiction,
    contradiction_refusal,
    contradicts,
)

CONTRADICTIONS = [
    ("Always include a 'Testing' section.", "Never include a 'Testing' section."),
    ("- Always include a Testing section", "- Don't add a Testing section"),
    ("Always include a Testing section", "Do not include a testing section."),
    ("Include a 'Testing' section heading", "Never add a 'Testing' header"),
    ("Use tabs for indentation.", "Avoid tabs for indentation."),
    ("Prefer `pnpm` for installs", "Stop using `pnpm` for installs"),
    ("You must use type hints.", "You must not use type hints."),
    ("Always add print statements", "Stop adding print statements"),
    ("Run `pytest -q` before committing.", "Never run `pytest -q` before committing."),
    ("Make sure to squash the commits.", "Don't squash the commits."),
    ("Always write the changelog entry.", "No longer write the changelog entry."),
    ("Stop at the first failure.", "Don't stop at the first failure."),
    ("Start with a one-line summary.", "Never start with a one-line summary."),
    ("Always begin the reply with the diff", "Don't begin the reply with the diff"),
    ("1. **Always** mention the ticket ID.", "* **Never** mention the ticket IDs."),
    ("Always include a \u2018Testing\u2019 section", "Never include a 'Testing' section"),
    # the same instruction before a colon, sharing a quoted term; the explanations differ
    (
        "- Always include a 'Testing' section: list the commands you ran.",
        "- Never include a 'Testing' section: reviewers find it noisy.",
    ),
    # one sentence of a line contradicts; the next one only explains
    (
        "- Always include a 'Testing' section heading: a Testing section.",
        "- Never always include a 'Testing' section heading: a Testing section; it clutters "
        "the answer.",
    ),
]

NOT_CONTRADICTIONS = [
    # different subjects sharing words
    ("Always include a Testing section", "Never include a Summary section"),
    ("Always run the unit tests", "Never run the integration tests"),
    ("Use tabs in Makefiles", "Avoid tabs in Python files"),
    ("Always run `pytest -q`", "Never run `pytest -x`"),
    ("Always write tests", "Never run tests"),
    # conditions and exceptions
    ("Always include a Testing section", "Never include a Testing section unless asked."),
    ("Never include a Testing section", "Always include a Testing section except for docs."),
    ("Always include a Testing section", "Never include a Testing section when it is empty."),
    ("Never push to main", "Only push to main after review."),
    ("Always include a Testing section", "Never include a Testing section. If asked, add it."),
    # a negative and a positive about different objects
    ("Never use print statements", "Always use the logger"),
    ("Don't use print; use the logger instead.", "Always use the logger"),
    # lists
    ("Always include Summary, Testing and Risks sections", "Never include a Testing section"),
    ("Never use: print, pdb or breakpoint", "Always use pdb"),
    # same polarity, statements, questions, headings, tables, quotations
    ("Always include a Testing section", "Always include a 'Testing' section."),
    ("Never include a Testing section", "Don't add a Testing section"),
    ("Tests run in CI", "Never run tests in CI"),
    ("Should we include a Testing section?", "Never include a Testing section"),
    ("## Always include a Testing section", "Never include a Testing section"),
    ("| Always | include a Testing section |", "Never include a Testing section"),
    ("> Always include a Testing section", "Never include a Testing section"),
    # two negatives, and "stop" as an instruction of its own
    ("Never skip the tests", "Skip the tests"),
    ("Stop the server before migrating", "Always use the server before migrating"),
    # a lead-in colon: the commands differ
    ("Always run: `make lint`", "Never run: `rm -rf build`"),
    ("Always run these commands: `make lint`", "Never run these commands: `rm -rf build`"),
    # one extra word is another subject
    ("Always include a 'Testing' section", "Never include the 'Testing' section's logs"),
    ("A Testing section.", "Never include a Testing section"),
    ("", "Never include a Testing section"),
]


@pytest.mark.parametrize(("line", "other"), CONTRADICTIONS)
def test_opposite_instructions_about_one_subject_contradict(line: str, other: str) -> None:
    assert contradicts(line, other) and contradicts(other, line)


@pytest.mark.parametrize(("line", "other"), NOT_CONTRADICTIONS)
def test_lines_that_do_not_say_the_opposite_do_not(line: str, other: str) -> None:
    assert not contradicts(line, other) and not contradicts(other, line)


ALWAYS = "- Always include a 'Testing' section in the PR description."
NEVER = "- Never include a 'Testing' section in the PR description."
FRONT = "---\nname: pr\ndescription: d\n---\n"
USER = "<!-- skillopt:protected user -->\n{}\n<!-- /skillopt:protected user -->\n\n"


def one(text: str, edit: Edit) -> tuple[str, bool, str]:
    report = apply_edits(text, [edit])
    (outcome,) = report.outcomes
    return report.text, outcome.applied, outcome.reason


def test_an_add_contradicting_a_learned_line_is_refused_naming_it() -> None:
    skill = f"{FRONT}# PR\n\n{ALWAYS}\n- Keep it short.\n"
    text, applied, reason = one(skill, Edit(EditOp.ADD, "", NEVER))
    assert not applied and text == skill
    assert reason.startswith(CONTRADICTION_PREFIX)
    assert repr(ALWAYS) in reason and "replace that line instead" in reason


def test_a_replace_of_the_contradicted_line_itself_passes() -> None:
    skill = f"# PR\n\n{ALWAYS}\n- Keep it short.\n"
    text, applied, _ = one(skill, Edit(EditOp.REPLACE, ALWAYS, NEVER))
    assert applied and NEVER in text and ALWAYS not in text
    text, applied, _ = one(skill, Edit(EditOp.REPLACE, "Always", "Never"))  # part of the line
    assert applied and NEVER in text


def test_a_replace_of_another_line_with_the_opposite_is_refused() -> None:
    skill = f"# PR\n\n{ALWAYS}\n- Keep it short.\n"
    _, applied, reason = one(skill, Edit(EditOp.REPLACE, "- Keep it short.", NEVER))
    assert not applied and reason.startswith(CONTRADICTION_PREFIX) and repr(ALWAYS) in reason


def test_the_users_protected_text_and_the_slow_update_block_are_not_learned_lines() -> None:
    skill = f"{FRONT}{USER.format(ALWAYS)}# Learned\n\n- Keep it short.\n"
    assert one(skill, Edit(EditOp.ADD, "", NEVER))[1]
    slow = (
        "# Learned\n\n- Keep it short.\n\n<!-- skillopt:protected slow-update -->\n"
        f"{ALWAYS}\n<!-- /skillopt:protected slow-update -->\n"
    )
    assert one(slow, Edit(EditOp.ADD, "- Keep it short.", NEVER))[1]


def test_code_blocks_are_ignored_on_both_sides() -> None:
    fenced = f"# PR\n\n```text\n{ALWAYS}\n```\n"
    assert one(fenced, Edit(EditOp.ADD, "", NEVER))[1]
    skill = f"# PR\n\n{ALWAYS}\n"
    assert one(skill, Edit(EditOp.ADD, "", f"~~~md\n{NEVER}\n~~~"))[1]


def test_a_contradiction_already_there_may_be_reworded_and_other_edits_pass() -> None:
    skill = f"# PR\n\n{ALWAYS}\n{NEVER}\n"
    reworded = "- Never include a 'Testing' section in the PR description at all."
    assert one(skill, Edit(EditOp.REPLACE, NEVER, reworded))[1]
    assert one(skill, Edit(EditOp.ADD, "", "- Link the issue."))[1]
    assert one(skill, Edit(EditOp.DELETE, ALWAYS))[1]


def test_a_conditional_add_passes() -> None:
    skill = f"# PR\n\n{ALWAYS}\n"
    edit = Edit(EditOp.ADD, "", "- Never include a 'Testing' section when the PR only edits docs.")
    assert one(skill, edit)[1]


def test_in_a_bundle_the_later_edit_meets_what_the_earlier_one_wrote() -> None:
    skill = "# PR\n\n- Keep it short.\n"
    report = apply_edits(skill, [Edit(EditOp.ADD, "", ALWAYS), Edit(EditOp.ADD, "", NEVER)])
    assert [o.applied for o in report.outcomes] == [True, False]
    assert ALWAYS in report.text and NEVER not in report.text


def test_the_check_reads_only_what_changed() -> None:
    skill = f"# PR\n\n{ALWAYS}\n"
    assert contradiction(skill, skill) is None
    assert contradiction(skill, f"{skill}{NEVER}\n") == (NEVER, ALWAYS)
    assert contradiction_refusal(skill, f"{skill}- Link the issue.\n") == ""


def test_an_over_long_line_gives_no_instruction() -> None:
    line = "Never include a Testing section. " + "Keep it. " * MAX_LINE_CHARS
    assert claims(line) == () and not contradicts(line, "Always include a Testing section")
    assert claims("Never include a Testing section. Keep it.")
    assert claims("Never include \x007\x00 a Testing section")  # no quoted term 7 to look up


def test_an_add_contradicting_a_learned_line_becomes_a_replace_of_it() -> None:
    text = "# Skill\n\n- Always include a 'Testing' section.\n- Link the issue.\n"
    add = Edit(EditOp.ADD, "", "- Never include a 'Testing' section.", "reviewers object")
    swapped = as_replacement(text, add)
    assert (swapped.op, swapped.anchor) == (EditOp.REPLACE, "- Always include a 'Testing' section.")
    assert swapped.content == add.content and swapped.rationale.startswith("reviewers object (")
    unrelated = Edit(EditOp.ADD, "", "- Never force-push to main.")
    conditional = Edit(EditOp.ADD, "", "- Never include a 'Testing' section unless asked.")
    other_ops = [
        Edit(EditOp.DELETE, "- Link the issue."),
        Edit(EditOp.REPLACE, "- Link the issue.", add.content),
    ]
    for edit in (unrelated, conditional, *other_ops):
        assert as_replacement(text, edit) is edit


@pytest.mark.parametrize(
    ("line", "other"),
    [
        ("- Always deploy by Friday.", "- Never deploy on Friday."),
        ("- Always sync from the server.", "- Never sync to the server."),
        ("- Always copy files from the backup.", "- Never copy files to the backup."),
        ("- Always write 'Summary' - at the top.", "- Never write 'Summary' - at the bottom."),
    ],
)
def test_prepositions_and_what_follows_a_dash_tell_instructions_apart(
    line: str, other: str
) -> None:
    assert not contradicts(line, other) and not contradicts(other, line)


def test_an_add_is_replaced_in_only_where_the_line_it_contradicts_is_one_and_unique() -> None:
    never = "- Never include a Summary section."
    add = Edit(EditOp.ADD, "", "- Always include a Summary section.")
    longer = f"# S\n\n{never[:-1]}\n{never[:-1]} header in tables.\n"  # starts a longer line
    twice = f"# S\n\n{never}\n- Link the issue.\n{never}\n"
    two = f"# S\n\n{never}\n- never include a summary section\n"  # two lines it contradicts
    for text in (longer, twice, two):
        assert as_replacement(text, add) is add, text
        assert apply_edits(text, [add]).outcomes[0].reason.startswith(CONTRADICTION_PREFIX)
    block = Edit(EditOp.ADD, "", "## Reports\n- Always include a Summary section.")
    assert as_replacement(f"# S\n\n{never}\n- Link the issue.\n", block) is block


def test_two_opposite_edits_of_one_batch_skip_the_second_without_refusing_it() -> None:
    """The first may yet be refused by the gate; the second was blocked for good for
    contradicting a line that was never learned."""
    text = "# S\n\n- Link the issue.\n"
    always = Edit(EditOp.ADD, "", "- Always include a Testing section.")
    never = Edit(EditOp.ADD, "", "- Never include a Testing section.")
    first, second = apply_edits(text, [always, never]).outcomes
    assert first.applied and not second.applied
    assert not second.reason.startswith(CONTRADICTION_PREFIX)
    assert "an earlier edit" in second.reason
