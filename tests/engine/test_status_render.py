"""``status`` and ``proposals`` on an 80-column terminal show whole ids.

Before, Rich squeezed the id column first: two nights of one day both read ``20261127-…``, and
the id is what ``report``, ``adopt`` and ``rollback`` take.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from skillopt_sleep.cli._render import proposals_table, status_table
from skillopt_sleep.engine.records import NightSummary, Proposal, Status

IDS = ("20261127-031700", "20261127-151742")


def _night(night_id: str) -> NightSummary:
    return NightSummary(night_id, "2026-11-27T03:17:00+00:00", "staged", 1234, 56, 3, 0.41,
                        0.77, 0.0123, night_id)  # fmt: skip


def _proposal(night_id: str) -> Proposal:
    files = ("/home/someone/projects/a-rather-long-project-name/.claude/skills/deploy/SKILL.md",)
    return Proposal(night_id, "pending", f"/state/staging/{night_id}", "", files, 3,
                    "better: held-out 0.41 -> 0.77 (CI above zero)")  # fmt: skip


@pytest.mark.parametrize("width", ["60", "80"])
def test_ids_are_never_cut(
    width: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", width)
    status = Status(
        "/home/someone/projects/a-rather-long-project-name",
        "/home/someone/.local/state/skillopt-sleep/projects/a-rather-long-project-name-0123abcd",
        tuple(_night(i) for i in IDS),
        tuple(_proposal(i) for i in IDS),
        {},
        {"optimizer": "mock", "target": "mock"},
        {"requests": 10},
    )
    status_table(status)
    proposals_table(status.pending)
    shown = capsys.readouterr().out
    for night_id in IDS:
        assert shown.count(night_id) >= 3  # the night, its pending proposal, the proposals table


def test_an_80_column_status_cuts_no_header_or_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, the held-out column read ``held-o…`` and its values wrapped onto two lines."""
    monkeypatch.setenv("COLUMNS", "80")
    nights = (
        replace(_night(IDS[0]), outcome="no change"),
        replace(_night(IDS[1]), held_out_before=None, held_out_after=None, cost_usd=12.5),
    )
    status_table(Status("/p", "/s", nights, (), {}, {"optimizer": "mock"}, {}))
    shown = capsys.readouterr().out
    assert "…" not in shown
    for text in ("held-out", "outcome", "no change", "0.41->0.77", "$0.0123", "$12.5000"):
        assert text in shown
