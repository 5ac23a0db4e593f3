"""Proposals over many unattended nights: which one is pending, and how many are kept.

Found by running the scheduled command for 14 nights on one project: a proposal left pending
while a later one for the same file was adopted stayed "pending" for good, so `status` offered
it, `adopt` (no id) picked it and was refused as drifted (its hint, `adopt --force`, would have
put back the file without the edits just adopted) and `reject` (no id) rejected it; and every
staged proposal was kept forever, so a user who never adopts had one pending proposal per night
(about 80 KB and 8 files each: 29 MB and 2,900 files a year).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback
from skillopt_sleep.stage.proposal import FileChange, stage
from skillopt_sleep.stage.retention import KEEP_SETTLED


def _skill(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "proj" / ".claude" / "skills" / name / "SKILL.md"
    if not path.exists():
        path.parent.mkdir(parents=True)
        path.write_bytes(f"---\nname: {name}\ndescription: {name} things\n---\nold\n".encode())
    return path


def _stage(night: int, *skills: Path) -> str:
    """A proposal staged from the live files as they are now (night ids sort by night)."""
    night_id = f"202601{night // 24 + 1:02d}-{night % 24:02d}0000"
    changes = [
        FileChange(s, "skill", s.read_bytes(), f"{s.read_text()}advice {night}\n", 1)
        for s in skills
    ]
    stage(ProjectState(skills[0].parents[3]), night_id, changes, {})
    return night_id


def _states(project: Path) -> dict[str, str]:
    return {p.id: p.state for p in list_proposals(project)}


def test_adopting_a_proposal_supersedes_the_pending_ones_it_made_unadoptable(
    tmp_path: Path,
) -> None:
    a, b = _skill(tmp_path, "a"), _skill(tmp_path, "b")
    project = a.parents[3]
    both = _stage(1, a, b)  # night 1: both files, left pending
    only_a = _stage(2, a)  # night 2: a only, so night 1's stays on offer
    assert _states(project) == {both: "pending", only_a: "pending"}

    adopt(project)  # the latest pending: night 2's
    assert _states(project) == {both: "superseded", only_a: "adopted"}
    with pytest.raises(UsageError, match="no pending proposal"):
        adopt(project)  # was: night 1's, refused as drifted (exit 6)
    with pytest.raises(UsageError, match="no pending proposal"):
        reject(project)  # was: night 1's edits into the rejected buffer

    rollback(project)  # a is as night 1's proposal found it again: it is offered again
    assert _states(project) == {both: "pending", only_a: "rolled back"}
    adopt(project, both)
    assert a.read_text().endswith("advice 1\n") and b.read_text().endswith("advice 1\n")


def test_a_user_who_never_adopts_has_one_pending_proposal_and_bounded_staging(
    tmp_path: Path,
) -> None:
    a = _skill(tmp_path, "a")
    project = a.parents[3]
    nights = [_stage(n, a) for n in range(KEEP_SETTLED + 15)]
    states = _states(project)
    assert [n for n, s in states.items() if s == "pending"] == [nights[-1]]
    assert len(states) == KEEP_SETTLED + 1  # the pending one and the newest settled ones
    assert set(states) == set(nights[-(KEEP_SETTLED + 1) :])
    adopt(project)
    assert a.read_text().endswith(f"advice {KEEP_SETTLED + 14}\n")


def test_a_proposal_superseded_by_a_discarded_one_is_offered_again(tmp_path: Path) -> None:
    """A night killed after staging: the next night removes its proposal (never committed)."""
    import shutil

    a, b = _skill(tmp_path, "a"), _skill(tmp_path, "b")
    project = a.parents[3]
    first = _stage(1, a)
    killed = _stage(2, a)
    assert _states(project) == {first: "superseded", killed: "pending"}
    shutil.rmtree(ProjectState(project).proposal_dir(killed))
    other = _stage(3, b)  # tonight stages only for another file
    assert _states(project) == {first: "pending", other: "pending"}


def test_adopt_and_rollback_night_after_night_keep_state_bounded(tmp_path: Path) -> None:
    a = _skill(tmp_path, "a")
    project = a.parents[3]
    state = ProjectState(project)
    for night in range(KEEP_SETTLED + 10):
        a.write_bytes(a.read_bytes() + f"user line {night}\n".encode())  # a new content each night
        _stage(night, a)
        adopt(project)
        rollback(project)
    states = _states(project)
    assert len(states) == KEEP_SETTLED and set(states.values()) == {"rolled back"}
    backups = state.root / "backups"
    assert {p.name for p in backups.iterdir()} == set(states) | {"by-sha256"}
    assert len(list((backups / "by-sha256").iterdir())) == KEEP_SETTLED
    assert a.read_text().endswith(f"user line {KEEP_SETTLED + 9}\n")
