"""What the MCP tools hand an agent stays small however big the project's history grows: a
finished night's job is counts and the way to its report, never the report's every record
(``night_status`` of a 500-family night was 1.5 MB, far over what a harness passes on), and
``proposals`` and ``mine`` list the newest or largest with the count of all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from skillopt_sleep.engine import ProjectState
from skillopt_sleep.mcp import build_server, jobfile
from skillopt_sleep.mine.config import FamilySummary, MineResult
from skillopt_sleep.stage.proposal import FileChange, stage
from tests.stage.reports import many_families

MAX_RESPONSE = 16 * 1024  # bytes, text and structured content together


def _size(result: Any) -> int:
    text = sum(len(c.text.encode("utf-8")) for c in result.content)
    return text + len(json.dumps(result.structured_content).encode("utf-8"))


def test_a_finished_night_of_500_families_is_a_small_job(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    directory = jobfile.create(project)
    view = jobfile.JobView(directory.name, str(project), False, "running", jobfile.now())
    report = many_families(500)
    jobfile.JobRecorder(directory, view).finish(report)

    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.call_tool("night_status", {"project": str(project)})

    result = anyio.run(go)
    assert not result.is_error, result.content
    assert _size(result) < MAX_RESPONSE, _size(result)
    shown = result.structured_content["report"]
    assert shown["proposal"] == report.proposal and shown["outcome"] == report.outcome
    assert shown["family_count"] == 500
    assert shown["accepted_edits"] == len(report.accepted) > 0
    assert shown["held_out"]["after"] == report.held_out.after  # type: ignore[union-attr]


def test_proposals_lists_the_newest_and_counts_them_all(tmp_path: Path) -> None:
    """Adopted proposals are kept for rollback, one a night: a year of them was a 500 KB list."""
    project = tmp_path / "proj"
    project.mkdir()
    ids = [f"20260101-{n:06d}" for n in range(120)]
    for n, night in enumerate(ids):
        live = project / ".claude" / "skills" / f"skill-{n}" / "SKILL.md"
        stage(ProjectState(project), night, [FileChange(live, "managed", None, "x\n", 1)], {})

    async def go() -> tuple[Any, Any]:
        async with Client(build_server()) as client:
            where = {"project": str(project)}
            few = await client.call_tool("proposals", {**where, "limit": 3})
            return await client.call_tool("proposals", where), few

    listed, few = anyio.run(go)
    assert not listed.is_error, listed.content
    assert _size(listed) < 2 * MAX_RESPONSE, _size(listed)
    assert listed.structured_content["total"] == 120
    assert [p["id"] for p in listed.structured_content["proposals"]] == ids[-20:]
    assert [p["id"] for p in few.structured_content["proposals"]] == ids[-3:]


def test_mine_previews_the_largest_families_with_short_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions holding 500 families of long requests (a kept request runs to 8,000 characters):
    the preview was every family with three whole requests, megabytes."""
    import skillopt_sleep.engine

    families = tuple(
        FamilySummary(f"fam-{n:03d}", "r", n + 2, ("x" * 8000,) * 5, {}, {}, "rubric")
        for n in range(500)
    )
    mined = MineResult((), families, "tfidf", {"sessions": 900})
    monkeypatch.setattr(skillopt_sleep.engine, "preview_families", lambda *_, **__: mined)
    project = tmp_path / "proj"
    project.mkdir()

    async def go() -> Any:
        async with Client(build_server()) as client:
            return await client.call_tool("mine", {"project": str(project)})

    result = anyio.run(go)
    assert not result.is_error, result.content
    assert _size(result) < 2 * MAX_RESPONSE, _size(result)
    shown = result.structured_content
    assert shown["family_count"] == 500 and shown["sessions"] == 900
    assert [f["id"] for f in shown["families"]] == [f"fam-{n:03d}" for n in range(499, 479, -1)]
    assert all(len(e) <= 200 for f in shown["families"] for e in f["examples"])


def test_a_job_finished_before_the_upgrade_still_reads(tmp_path: Path) -> None:
    """Its file holds the whole night report (no counts): it read as damaged, "move it aside",
    on the first night_status after upgrading."""
    from skillopt_sleep.mcp import jobfile

    old_report = {
        "night_id": "20261126-031700",
        "project": "/p",
        "started_at": "2026-11-26T03:17:00+00:00",
        "finished_at": "2026-11-26T03:20:00+00:00",
        "dry_run": False,
        "outcome": "staged",
        "message": "2 edit(s) passed the gate",
        "sessions": 12,
        "requests": 30,
        "tasks": 8,
        "families": [{"id": "f1"}, {"id": "f2"}, {"id": "f3"}],
        "changes": [],
        "edits": [{"accepted": True}, {"accepted": True}, {"accepted": False}],
        "held_out": None,
        "usage": {"calls": 40, "input_tokens": 1, "output_tokens": 1, "cost_usd": 0.0},
        "proposal": "20261126-031700",
        "proposal_dir": "/state/staging/20261126-031700",
    }
    job = tmp_path / "job"
    job.mkdir()
    view = {"id": "j1", "project": "/p", "dry_run": False, "state": "finished",
            "started_at": "2026-11-26T03:17:00+00:00", "report": old_report}  # fmt: skip
    (job / "job.json").write_text(json.dumps(view))
    outcome = jobfile.read_view(job).report
    assert outcome is not None
    assert (outcome.family_count, outcome.accepted_edits, outcome.rejected_edits) == (3, 2, 1)
    assert (outcome.outcome, outcome.proposal, outcome.usage.calls) == (
        "staged",
        old_report["proposal"],
        40,
    )
