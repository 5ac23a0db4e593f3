"""``status`` reads the reports of the proposals it shows (the pending ones), not all of them.

Before, it read every proposal's ``report.json`` just for a verdict it never showed: after a year
of nights (311 proposals) status took twice as long, and one damaged report of a proposal adopted
long ago stopped ``status`` with an error about a file nobody asked for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.engine import views
from skillopt_sleep.engine.state import ProjectState
from tests._guard import StandIns

VERDICT = "better: held-out 0.41 -> 0.77 (CI above zero)"


@pytest.fixture(autouse=True)
def _scheduler(fake_scheduler: StandIns) -> None:
    """``status`` asks the scheduler about a project with no schedule record."""


def _stage(state: ProjectState, night_id: str, status: str, report: str) -> Path:
    folder = state.root / "staging" / night_id
    folder.mkdir(parents=True)
    manifest = {"state": status, "created_at": "2026-11-20T03:17:00+00:00",
                "files": [{"live_path": "/p/SKILL.md", "accepted_edits": 2}]}  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "report.json").write_text(report)
    return folder


def _report(verdict: str) -> str:
    return json.dumps({"held_out": {"verdict": verdict}, "edits": [{"pad": "x" * 1000}] * 50})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    state = ProjectState(root).ensure()
    for day in range(1, 9):
        _stage(state, f"202611{day:02d}-031700", "adopted", _report("worse"))
    _stage(state, "20261109-031700", "rejected", "[1]\n")  # damaged long after it mattered
    _stage(state, "20261110-031700", "pending", _report(VERDICT))
    return root


def test_status_reads_only_the_pending_reports(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = views.read_json

    def counting(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "report.json":
            read.append(path.parent.name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(views, "read_json", counting)
    status = views.status(project)
    (pending,) = status.pending
    assert (pending.id, pending.state, pending.verdict) == ("20261110-031700", "pending", VERDICT)
    assert pending.accepted_edits == 2 and pending.files == ("/p/SKILL.md",)
    assert read == ["20261110-031700"]
    assert status.warnings == ()


def test_proposals_still_show_every_verdict(project: Path) -> None:
    """``proposals`` lists them all with their verdicts (and names a damaged report)."""
    from skillopt_core.errors import StorageError

    state = ProjectState(project)
    (state.root / "staging" / "20261109-031700" / "report.json").write_text(_report("worse"))
    verdicts = {p.id: p.verdict for p in views.list_proposals(project)}
    assert verdicts["20261101-031700"] == "worse" and verdicts["20261110-031700"] == VERDICT
    (state.root / "staging" / "20261109-031700" / "report.json").write_text("[1]\n")
    with pytest.raises(StorageError, match=r"report\.json"):
        views.list_proposals(project)


def test_a_damaged_pending_report_is_still_named(project: Path) -> None:
    from skillopt_core.errors import StorageError

    report = ProjectState(project).root / "staging" / "20261110-031700" / "report.json"
    report.write_text("[1]\n")
    with pytest.raises(StorageError, match=r"report\.json"):
        views.status(project)
