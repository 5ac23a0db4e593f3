"""A night killed after staging but before its commit leaves a proposal whose sessions were never
consumed: the next night replays them, so that proposal is discarded rather than offered twice."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.engine import ProjectState, list_proposals
from skillopt_sleep.engine.night import _discard_unfinished
from skillopt_sleep.harvest import open_index, run


def _stage(state: ProjectState, night: str, status: str = "pending") -> None:
    directory = state.proposal_dir(night)
    directory.mkdir(parents=True)
    (directory / "manifest.json").write_text(json.dumps({"files": [], "state": status}))


def test_a_commit_records_its_night_in_the_same_transaction(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    homes = {"claude": tmp_path / "no-sessions"}
    with open_index(project, tmp_path / "state") as index:
        run(project, ("claude",), None, index, homes=homes)  # binds the index to the project
        assert index.finished_nights() == set()
        index.commit(night="20261126-031700")
    with open_index(project, tmp_path / "state") as index:
        run(project, ("claude",), None, index, homes=homes)
        assert index.finished_nights() == {"20261126-031700"}
        index.rollback()


class _Index:
    def __init__(self, finished: set[str]) -> None:
        self.finished = finished

    def finished_nights(self) -> set[str]:
        return self.finished


def test_only_pending_proposals_of_unfinished_nights_are_discarded(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    state = ProjectState(project)
    state.ensure()
    _stage(state, "20261120-031700")  # before nights were recorded: kept
    _stage(state, "20261124-031700")  # a finished night's proposal: kept
    _stage(state, "20261125-031700")  # killed after staging: discarded
    _stage(state, "20261126-031700", "adopted")  # killed after an auto-adopt: kept
    index = _Index({"20261123-031700", "20261124-031700"})
    assert _discard_unfinished(state, index) == ["20261125-031700"]
    assert [p.id for p in list_proposals(project)] == [
        "20261120-031700",
        "20261124-031700",
        "20261126-031700",
    ]
    assert _discard_unfinished(state, _Index(set())) == [], "nothing recorded yet: keep all"
