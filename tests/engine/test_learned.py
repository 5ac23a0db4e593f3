"""The learned region: the user's bytes outside it never change, whatever the nights learn."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillopt_sleep.skills import body_from_view, learned_body, training_view, with_learned
from skillopt_sleep.skills.learned import CLOSE, OPEN

USER = "---\nname: deploy\ndescription: how we deploy\n---\r\n# Deploy\r\nRun make ship.\r\n"


def _outside(text: str) -> str:
    start = text.find(OPEN)
    if start < 0:
        return text
    end = text.index(CLOSE, start) + len(CLOSE)
    return text[:start] + text[end:]


def test_region_is_appended_then_replaced_in_place() -> None:
    once = with_learned(USER, "- Tag the release first.\n")
    assert once.startswith(USER) and "- Tag the release first." in once
    assert "\r\n- Tag the release first.\r\n" in once  # the file's own line endings
    twice = with_learned(once, "- Tag the release first.\n- Then announce it.\n")
    assert twice.startswith(USER) and twice.count(OPEN) == 1
    assert (
        learned_body(twice).replace("\r\n", "\n")
        == "- Tag the release first.\n- Then announce it.\n"
    )


def test_training_view_protects_user_text_and_round_trips() -> None:
    live = with_learned(USER, "- one\n")
    view = training_view(live)
    assert "skillopt:protected user-text" in view and "Run make ship." in view
    assert body_from_view(view + "- two\n").replace("\r\n", "\n") == "- one\n- two\n"


def test_empty_body_adds_nothing() -> None:
    assert with_learned(USER, "") == USER


@given(
    before=st.text(alphabet=st.characters(blacklist_characters="<>\x00"), max_size=80),
    after=st.text(alphabet=st.characters(blacklist_characters="<>\x00"), max_size=80),
    body=st.lists(st.text(alphabet="abc xyz-", min_size=1, max_size=20), max_size=4),
)
def test_bytes_outside_the_region_are_preserved(before: str, after: str, body: list[str]) -> None:
    live = with_learned(before, "- seed\n") + after
    updated = with_learned(live, "".join(f"- {line}\n" for line in body))
    assert _outside(updated) == _outside(live)


def test_a_file_opening_with_a_rule_keeps_one_learned_block() -> None:
    """A file that opens with a ``---`` rule and gains another ``---`` line after the block
    looked like frontmatter holding the block: the next adopt appended a second block."""
    live = with_learned("---\nNotes\n", "- seed\n") + "---\nmore notes\n"
    updated = with_learned(live, "- better\n")
    assert updated.count(OPEN) == 1 and learned_body(updated) == "- better\n"
    assert _outside(updated) == _outside(live)
    view = training_view(updated)
    assert "Notes" in view and body_from_view(view) == "- better\n"
