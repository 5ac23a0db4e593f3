"""What a rollback offers again, after weeks of adopts, nights and rollbacks.

Found by simulating months of nights (adopt some, leave some, roll back some):

- a night staged a proposal over an adopt's text; the user then rolled that adopt back. The
  proposal stayed "pending", made from text no longer live: `status` offered it, `adopt` (no id)
  picked it and was refused as drifted (exit 6, "live files changed since ... was staged", though
  the user changed nothing), and the hint, `adopt --force`, would have put back the edits just
  rolled back. The same happened down a chain of rollbacks: a proposal the first rollback
  offered again stayed pending when the next rollback took its text away;
- a rollback offered again the older proposal the rolled-back one had superseded, even when it
  held the very edits the rollback had just refused, or ones the user had rejected before
  (consecutive nights often propose the same edit): adopting it put them back, though a refused
  edit is never to be proposed again. In 120 simulated nights (adopt, leave, reject, and roll
  back every 13th night) four such proposals were adopted, bringing back seven refused edits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback
from tests.longrun._staging import new_skill, stage_adding


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return new_skill(tmp_path)


def _stage(skill: Path, night: int, *lines: str) -> str:
    return stage_adding(skill, night, *lines)


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_a_proposal_made_over_a_rolled_back_adopt_is_no_longer_offered(skill: Path) -> None:
    project = skill.parents[3]
    monday = _stage(skill, 5, "- cite the ticket")
    adopt(project, monday)
    tuesday = _stage(skill, 6, "- name the release")  # made over Monday's text
    rollback(project, monday)  # the user undoes Monday's adopt
    assert _states(project) == {monday: "rolled back", tuesday: "superseded"}
    with pytest.raises(UsageError, match="no pending proposal"):
        adopt(project)  # was: Tuesday's, refused as drifted (exit 6) with an `--force` hint
    assert "cite the ticket" not in skill.read_text()


def test_a_chain_of_rollbacks_leaves_only_what_matches_the_live_file(skill: Path) -> None:
    project = skill.parents[3]
    first = _stage(skill, 1, "- one")
    second = _stage(skill, 2, "- two")  # supersedes the first (made from the same text)
    adopt(project, second)
    third = _stage(skill, 3, "- three")
    fourth = _stage(skill, 4, "- four")  # supersedes the third
    adopt(project, fourth)

    rollback(project)  # the fourth: the live file is the second's text again
    assert _states(project)[third] == "pending"
    rollback(project)  # the second: the live file is as the first night found it
    states = _states(project)
    assert states[first] == "pending"  # made from this very text: offered again
    assert states[third] == "superseded"  # was: "pending", made from the second's text
    adopt(project)  # the latest pending is the first one, and it matches
    assert skill.read_text().endswith("old\n- one\n")


def test_a_rollback_does_not_offer_again_the_edits_it_just_refused(skill: Path) -> None:
    project = skill.parents[3]
    older = _stage(skill, 1, "- keep it short", "- cite the ticket")
    newer = _stage(skill, 2, "- keep it short", "- name the release")  # supersedes the older
    adopt(project, newer)
    rollback(project, newer)  # "keep it short" is refused now
    assert _states(project) == {older: "superseded", newer: "rolled back"}
    with pytest.raises(UsageError, match="no pending proposal"):
        adopt(project)  # was: the older one, putting "keep it short" back
    assert "keep it short" not in skill.read_text()


def test_a_rollback_does_not_offer_again_an_edit_the_user_refused_before(skill: Path) -> None:
    project = skill.parents[3]
    older = _stage(skill, 1, "- keep it short", "- cite the ticket")
    adopted = _stage(skill, 2, "- name the release")  # supersedes the older
    adopt(project, adopted)
    refused = _stage(skill, 3, "- keep it short")  # over the adopt's text
    reject(project, refused)  # "keep it short" is refused now
    rollback(project, adopted)
    assert _states(project)[older] == "superseded"  # was: pending, with "keep it short"


def test_a_rollback_still_offers_again_what_it_superseded_when_unrelated(skill: Path) -> None:
    project = skill.parents[3]
    older = _stage(skill, 1, "- cite the ticket")
    newer = _stage(skill, 2, "- name the release")
    adopt(project, newer)
    rollback(project, newer)
    assert _states(project) == {older: "pending", newer: "rolled back"}


@pytest.mark.parametrize("damage", ["missing", "edits not a list"])
def test_a_proposal_whose_edits_cannot_be_read_is_not_offered_again(
    skill: Path, damage: str
) -> None:
    """Without its report the re-offered proposal's edits are unknown, so it could bring back
    the edit the rollback just refused (found by the review)."""
    project = skill.parents[3]
    older = _stage(skill, 1, "- keep it short", "- cite the ticket")
    newer = _stage(skill, 2, "- keep it short", "- name the release")
    adopt(project, newer)
    report = ProjectState(project).proposal_dir(older) / "report.json"
    if damage == "missing":
        report.unlink()
    else:
        report.write_text('{"edits": "many"}')
    rollback(project, newer)
    assert _states(project)[older] != "pending"
    assert "keep it short" not in skill.read_text()
