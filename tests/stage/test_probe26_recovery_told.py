"""What recovering an interrupted adopt did is said even when the command then fails, and
`status` does not call an adopt that is running now "interrupted".

Before: `rollback <other id>` or `adopt <unknown id>` after the recovery had restored the live
files failed with only "no staged proposal", so the user never learnt their files were put back;
`reject` did not recover at all, so a proposal rejected while its adopt was cut short kept its
text in the live files, and the next command's recovery made it pending again; and `status`
read the journal of an adopt in progress in another process as an interrupted one ("live files
may be part old, part new; `skillopt-sleep rollback` restores them")."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_core.errors import UsageError
from skillopt_sleep.engine import ProjectState, adopt, list_proposals, reject, rollback, status
from skillopt_sleep.stage import transaction
from skillopt_sleep.stage.proposal import FileChange, set_state, stage

pytestmark = pytest.mark.usefixtures("fake_scheduler")  # status reads the schedule

NIGHT = "20260101-030000"
UNDONE = f"an interrupted adopt of {NIGHT} was undone: live files restored"


def _stage(skill: Path) -> None:
    text = f"{skill.read_text()}- advice\n"
    stage(
        ProjectState(skill.parents[3]),
        NIGHT,
        [FileChange(skill, "skill", skill.read_bytes(), text, 1)],
        {},
    )


@pytest.fixture
def cut_short(skill: Path) -> Path:
    """The adopt of NIGHT killed after it wrote the live file: its journal "begin" has no
    "done" and the manifest still says pending."""
    _stage(skill)
    project = skill.parents[3]
    adopt(project, NIGHT)
    state = ProjectState(project)
    set_state(state.proposal_dir(NIGHT), "pending")
    lines = state.journal_path.read_text().splitlines(keepends=True)
    state.journal_path.write_text("".join(line for line in lines if '"done"' not in line))
    assert status(project).interrupted
    return project


def test_a_rollback_that_then_fails_says_what_the_recovery_did(
    cut_short: Path, skill: Path, old: bytes
) -> None:
    with pytest.raises(UsageError) as failed:
        rollback(cut_short, "20260102-030000")
    assert "no staged proposal '20260102-030000'" in failed.value.message
    assert UNDONE in failed.value.message
    assert skill.read_bytes() == old


def test_an_adopt_that_then_fails_says_it_too(cut_short: Path, skill: Path, old: bytes) -> None:
    with pytest.raises(UsageError) as failed:
        adopt(cut_short, "nope")
    assert UNDONE in failed.value.message and skill.read_bytes() == old


def test_reject_recovers_first(cut_short: Path, skill: Path, old: bytes) -> None:
    result = reject(cut_short, NIGHT)
    assert UNDONE in result.message and skill.read_bytes() == old
    assert status(cut_short).interrupted == ()
    with pytest.raises(UsageError, match="no adopted proposal"):
        rollback(cut_short)  # its recovery has nothing left to undo
    assert {p.id: p.state for p in list_proposals(cut_short)} == {NIGHT: "rejected"}


def test_status_during_an_adopt_does_not_call_it_interrupted(
    skill: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stage(skill)
    project = skill.parents[3]
    seen = []
    real = transaction.write_live

    def write_and_look(path: Path, data: bytes) -> None:
        real(path, data)
        seen.append(status(project))  # as another process would, mid-adopt

    monkeypatch.setattr(transaction, "write_live", write_and_look)
    adopt(project, NIGHT)
    (during,) = seen
    assert during.interrupted == () and during.running is not None
    assert status(project).interrupted == () and status(project).running is None
